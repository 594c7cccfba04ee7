package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// The fixtures of the suite's tasks scenarios (tasks-*, the io.modelcontextprotocol/tasks
// extension, SEP-2663). Which tools may run as tasks is declared in each tool's
// execution.taskSupport (ABI.md §4); the host makes a call a task when the guest reports
// progress (ABI.md §4: "the long part begins"), answers tasks/*, and gathers the input a
// guest asks before that in synchronous rounds. slow_compute and failing_job wait on the
// clock (they request it; .ci/conformance.sh grants it).

func addTaskTools() {
	task := func(support string) *abi.ToolExecution { return &abi.ToolExecution{TaskSupport: support} }
	guest.AddRawTool(abi.Tool{Name: "greet", Description: "Greets name (never a task)",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
			var in struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(args, &in)
			return abi.TextResult(fmt.Sprintf("Hello, %s!", in.Name)), nil
		})
	guest.AddRawTool(abi.Tool{Name: "slow_compute", Description: "Waits seconds, then answers label (a task when the client supports them)", Execution: task(abi.TaskOptional),
		Requests:    abi.Requests{Clock: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}`)},
		func(ctx context.Context, args json.RawMessage) (*abi.Result, error) {
			var in struct {
				Seconds float64 `json:"seconds"`
				Label   string  `json:"label"`
			}
			_ = json.Unmarshal(args, &in)
			guest.Progress(0, in.Seconds, "computing "+in.Label)
			time.Sleep(time.Duration(in.Seconds * float64(time.Second))) // ends early when the task is cancelled
			return abi.TextResult(fmt.Sprintf("Computed %s after %gs", in.Label, in.Seconds)), nil
		})
	guest.AddRawTool(abi.Tool{Name: "failing_job", Description: "Fails as a tool after a second (only as a task)", Execution: task(abi.TaskRequired),
		Requests:    abi.Requests{Clock: true},
		InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			guest.Progress(0, 1, "working")
			time.Sleep(time.Second)
			return abi.ErrorResult("failing_job failed, as it always does"), nil
		})
	guest.AddRawTool(abi.Tool{Name: "protocol_error_job", Description: "Exits the guest mid-call: a host failure, not a tool error (a task when the client supports them)", Execution: task(abi.TaskOptional),
		InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			guest.Progress(0, 1, "starting")
			os.Exit(3) // proc_exit during a call: the host fails the call (ABI.md §7)
			return nil, nil
		})
	guest.AddRawTool(abi.Tool{Name: "confirm_delete", Description: "Asks the user to confirm deleting filename (elicitation; a task when the client supports them)", Execution: task(abi.TaskOptional),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`)},
		func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
			var in struct {
				Filename string `json:"filename"`
			}
			_ = json.Unmarshal(args, &in)
			guest.Progress(0, 1, "looking up "+in.Filename) // a task from here on: the question goes on it
			out, err := askKeyed(abi.KindElicitation, elicitParams("Delete "+in.Filename+"?",
				json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)), opts{Key: "confirm"})
			if err != nil {
				return abi.ErrorResult("elicitation failed: " + err.Error()), nil
			}
			var res struct {
				Action  string `json:"action"`
				Content struct {
					Confirm bool `json:"confirm"`
				} `json:"content"`
			}
			_ = json.Unmarshal(out, &res)
			if res.Action == "accept" && res.Content.Confirm {
				return abi.TextResult("Deleted " + in.Filename), nil
			}
			return abi.TextResult("Kept " + in.Filename), nil
		})
	guest.AddRawTool(abi.Tool{Name: "multi_input", Description: "Asks two questions at once (elicitation; a task when the client supports them)", Execution: task(abi.TaskOptional),
		InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			guest.Progress(0, 1, "preparing") // a task from here on: the questions go on it
			schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}`)
			a, err1 := askKeyed(abi.KindElicitation, elicitParams("First input", schema), opts{Key: "first", Defer: true})
			b, err2 := askKeyed(abi.KindElicitation, elicitParams("Second input", schema), opts{Key: "second", Defer: true})
			if err := errors.Join(err1, err2); err != nil {
				return abi.ErrorResult("elicitation failed: " + err.Error()), nil
			}
			return abi.TextResult(fmt.Sprintf("Got %s and %s", elicitField(a, "name"), elicitField(b, "name"))), nil
		})
	guest.AddRawTool(abi.Tool{Name: "test_tool_with_task", Description: "Asks the user's name (elicitation, key user_name) before its task exists, then greets (only as a task)", Execution: task(abi.TaskRequired),
		InputSchema: json.RawMessage(noArgs)},
		func(context.Context, json.RawMessage) (*abi.Result, error) {
			out, err := askKeyed(abi.KindElicitation, elicitParams("What is your name?", nameSchema("name")), opts{Key: "user_name"})
			if err != nil {
				return abi.ErrorResult("elicitation failed: " + err.Error()), nil
			}
			return abi.TextResult(fmt.Sprintf("Hello, %s!", elicitField(out, "name"))), nil
		})
}
