// zod 3 schemas for mcpwasm's shim: packages built against the SDK before zod 4 (zod 3.x's
// root export; server-filesystem's "zod": "^3.25") hand the SDK zod 3 shapes. mcpwasm's
// shim speaks zod 4; this module turns a zod 3 shape into what it needs: an object schema
// (safeParse member by member, as z.object(shape) does, unknown keys dropped) and its JSON
// Schema (draft 2020-12, the subset MCP tools use: strings, numbers, booleans, arrays,
// objects, enums, literals, unions, optional, nullable, default, descriptions).
const isV3 = (s) => !!s && typeof s === "object" && "_def" in s && !("_zod" in s);

export const isZod3 = isV3;

// object3 returns a zod-like object schema over a shape of zod 3 schemas.
export function object3(shape) {
  const parse = (args) => {
    const issues = [];
    const data = {};
    const input = args && typeof args === "object" ? args : {};
    for (const k of Object.keys(shape)) {
      const r = shape[k].safeParse(input[k]);
      if (r.success) {
        if (r.data !== undefined) data[k] = r.data;
      } else for (const i of r.error.issues) issues.push(Object.assign({}, i, { path: [k, ...(i.path || [])] }));
    }
    return issues.length ? { success: false, error: { issues } } : { success: true, data };
  };
  return {
    _def: { typeName: "ZodObject", shape: () => shape },
    shape,
    safeParse: parse,
    safeParseAsync: async (args) => parse(args),
    isOptional: () => false,
  };
}

// toJSONSchema3 converts a zod 3 schema (or an object3) to JSON Schema.
export function toJSONSchema3(s) {
  const d = s._def || {};
  const out = {};
  const desc = d.description || s.description;
  const t = d.typeName;
  switch (t) {
    case "ZodString":
      out.type = "string";
      for (const c of d.checks || []) {
        if (c.kind === "min") out.minLength = c.value;
        else if (c.kind === "max") out.maxLength = c.value;
        else if (c.kind === "regex" && !c.regex.flags) out.pattern = c.regex.source;
        else if (["email", "uuid", "url", "datetime", "date", "time"].includes(c.kind)) out.format = c.kind === "datetime" ? "date-time" : c.kind === "url" ? "uri" : c.kind;
      }
      break;
    case "ZodNumber":
      out.type = (d.checks || []).some((c) => c.kind === "int") ? "integer" : "number";
      for (const c of d.checks || []) {
        if (c.kind === "min") out[c.inclusive ? "minimum" : "exclusiveMinimum"] = c.value;
        else if (c.kind === "max") out[c.inclusive ? "maximum" : "exclusiveMaximum"] = c.value;
      }
      break;
    case "ZodBigInt":
      out.type = "integer";
      break;
    case "ZodBoolean":
      out.type = "boolean";
      break;
    case "ZodNull":
      out.type = "null";
      break;
    case "ZodArray":
      out.type = "array";
      out.items = toJSONSchema3(d.type);
      if (d.minLength) out.minItems = d.minLength.value;
      if (d.maxLength) out.maxItems = d.maxLength.value;
      break;
    case "ZodObject": {
      const shape = typeof d.shape === "function" ? d.shape() : s.shape;
      out.type = "object";
      out.properties = {};
      const req = [];
      for (const k of Object.keys(shape)) {
        out.properties[k] = toJSONSchema3(shape[k]);
        if (!shape[k].isOptional()) req.push(k);
      }
      if (req.length) out.required = req;
      if (d.unknownKeys !== "passthrough") out.additionalProperties = false;
      break;
    }
    case "ZodRecord":
      out.type = "object";
      out.additionalProperties = toJSONSchema3(d.valueType);
      break;
    case "ZodEnum":
      out.type = "string";
      out.enum = d.values.slice();
      break;
    case "ZodNativeEnum":
      out.enum = Object.values(d.values).filter((v) => typeof d.values[v] !== "number");
      break;
    case "ZodLiteral":
      out.const = d.value;
      if (["string", "number", "boolean"].includes(typeof d.value)) out.type = typeof d.value;
      break;
    case "ZodUnion":
    case "ZodDiscriminatedUnion":
      out.anyOf = [...(d.options instanceof Map ? d.options.values() : d.options)].map(toJSONSchema3);
      break;
    case "ZodOptional":
      Object.assign(out, toJSONSchema3(d.innerType));
      break;
    case "ZodNullable":
      out.anyOf = [toJSONSchema3(d.innerType), { type: "null" }];
      break;
    case "ZodDefault":
      Object.assign(out, toJSONSchema3(d.innerType));
      out.default = d.defaultValue();
      break;
    case "ZodEffects":
      Object.assign(out, toJSONSchema3(d.schema));
      break;
    case "ZodLazy":
      Object.assign(out, toJSONSchema3(d.getter()));
      break;
    case "ZodTuple":
      out.type = "array";
      out.prefixItems = d.items.map(toJSONSchema3);
      break;
    default:
      break; // any, unknown: no constraint
  }
  if (desc && out.description === undefined) out.description = desc;
  return out;
}
