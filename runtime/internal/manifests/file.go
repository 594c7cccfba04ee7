package manifests

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// fileEntry is manifests/file-<hash of the identity>.json: which manifest cache entry the
// file had when it was last read.
type fileEntry struct {
	Format int    `json:"format"`
	ID     string `json:"id"`
	Key    string `json:"key"`
}

func fileEntryName(id string) string {
	sum := sha256.Sum256([]byte(id))
	return fmt.Sprintf("file-%x", sum[:16])
}

// GetFile returns the manifest cache key recorded for file identity id, or "".
func (c *Cache) GetFile(id string) string {
	name := fileEntryName(id)
	var b []byte
	if c.dir == "" {
		c.mu.Lock()
		b = c.mem[name]
		c.mu.Unlock()
	} else {
		if b = c.readFile(name + ".json"); b == nil {
			return ""
		}
	}
	var e fileEntry
	if b == nil || json.Unmarshal(b, &e) != nil || e.Format != Format || e.ID != id {
		return ""
	}
	return e.Key
}

// PutFile records that file identity id had manifest cache key key. Failures are logged.
func (c *Cache) PutFile(id, key string) {
	name := fileEntryName(id)
	b, err := json.Marshal(fileEntry{Format: Format, ID: id, Key: key})
	if err != nil {
		return
	}
	if c.dir == "" {
		c.mu.Lock()
		if c.mem == nil {
			c.mem = map[string][]byte{}
		}
		c.mem[name] = b
		c.mu.Unlock()
		return
	}
	if err := c.writeFile(name+".json", b); err != nil {
		c.logger.Warn("manifest cache: writing file entry", "entry", name, "err", err)
	}
}
