// The page of one kind of MCP App (collection, record or form), filled from the tool that
// opened it (the host context's toolInfo: its schemas) and from that tool's result.
//
// Every value from the API reaches the document as text (textContent, attribute values set
// one by one): nothing here parses HTML. The page loads nothing: the build inlines this
// script, its style and the extension's SDK into one HTML file.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";

/* global __KIND__ */
// The kind this page renders: its own, or, opened by a call proxy of search mode, the kind of
// the tool the proxy ran (its result's _meta["mcp-bridge/tool"], mcp_bridge.ui.proxied).
let KIND = __KIND__;

// The page's texts, in the caller's language: the server writes them into the page when the
// host reads it (resources/read), as JSON in a non-executed script element.
const TEXTS = (() => {
  try {
    return JSON.parse(document.getElementById("mcp-bridge-texts").textContent) || {};
  } catch {
    return {};
  }
})();

function t(key, values = {}) {
  let text = TEXTS[key] ?? key;
  for (const [name, value] of Object.entries(values)) text = text.split(`{${name}}`).join(String(value));
  return text;
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

const root = document.getElementById("app");
const state = { tool: null, proxied: false, args: {}, result: null, busy: false, message: null, tone: "", confirm: null, cancelled: false, trail: [], filter: null };

// ---- schemas and results ----------------------------------------------------------------

function resolve(schema, top) {
  let current = schema;
  for (let depth = 0; current && current.$ref && depth < 16; depth++) {
    const path = String(current.$ref).replace(/^#\//, "").split("/");
    current = path.reduce((node, part) => (node ? node[part] : undefined), top);
  }
  return current || {};
}

// An argument's schema as the form reads it: its $ref followed; drf-spectacular's wrapper of a
// shared choice component taken off ({"allOf": [Choices]} beside the field's texts); and the
// forms of a blank or null choice ({"anyOf": [Choices, BlankEnum, NullEnum, {"type": "null"}]})
// taken as the choices (a field that is not required offers "—", which leaves it out).
function fieldSchema(raw, top) {
  const schema = resolve(raw, top);
  if (isFile(schema)) return schema;
  const { allOf, anyOf, oneOf, ...outer } = schema;
  if (Array.isArray(allOf) && allOf.length === 1 && !anyOf && !oneOf) {
    return { ...fieldSchema(allOf[0], top), ...outer };
  }
  const forms = anyOf || oneOf;
  if (Array.isArray(forms) && !allOf) {
    const empty = (form) => form.type === "null" ||
      (Array.isArray(form.enum) && form.enum.every((choice) => choice === null || choice === ""));
    const kept = forms.map((form) => fieldSchema(form, top)).filter((form) => !empty(form));
    if (kept.length === 1) return { ...kept[0], ...outer };
  }
  return schema;
}

function typesOf(schema) {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  return types.filter((type) => type !== "null");
}

// The object schema of one row (collection) or of the record, from the tool's outputSchema,
// whose handshake-era form wraps the data in {"result": ...}.
function itemSchema(top, many) {
  if (!top) return null;
  let schema = resolve(top, top);
  if (schema.properties && schema.properties.result && Object.keys(schema.properties).length === 1) {
    schema = resolve(schema.properties.result, top);
  }
  if (many) {
    if (schema.properties && schema.properties.results) schema = resolve(schema.properties.results, top);
    if (typesOf(schema).includes("array")) schema = resolve(schema.items || {}, top);
  }
  return schema && schema.properties ? schema : null;
}

function dataOf(result) {
  if (!result) return undefined;
  const structured = result.structuredContent;
  if (structured && typeof structured === "object" && !Array.isArray(structured)) {
    const keys = Object.keys(structured);
    return keys.length === 1 && keys[0] === "result" ? structured.result : structured;
  }
  if (structured !== undefined) return structured;
  const block = (result.content || []).find((item) => item.type === "text");
  if (!block) return undefined;
  try {
    return JSON.parse(block.text);
  } catch {
    return block.text;
  }
}

function errorOf(result) {
  const data = dataOf({ content: result.content });
  if (data && typeof data === "object") return data;
  return { message: typeof data === "string" ? data : t("error") };
}

function display(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// ---- calling tools through the host ------------------------------------------------------

async function callTool(args) {
  if (!state.tool) return;
  state.busy = true;
  state.message = t("loading");
  state.tone = "";
  render();
  try {
    const result = await app.callServerTool({ name: state.tool.name, arguments: args });
    state.args = args;
    state.result = result;
    state.confirm = confirmationOf(result);
    state.cancelled = false;
    state.message = null;
  } catch (error) {
    state.message = t("failed", { message: error && error.message ? error.message : String(error) });
    state.tone = "error";
  } finally {
    state.busy = false;
    render();
  }
}

// The arguments a list tool pages with: a new search, filter or sort starts again at the first page.
const PAGING = ["page", "cursor", "offset", "limit", "page_size"];

// An argument's value as the tool takes it, from the text of its control (a form's field, a
// filter): undefined for an empty control. Throws a SyntaxError for JSON that does not parse.
function typedValue(text, schema) {
  const types = typesOf(schema);
  if (text === "") return undefined;
  if (schema.enum) return schema.enum.find((choice) => String(choice) === text) ?? text;
  if (types.includes("integer") || types.includes("number")) return Number(text);
  if (types.includes("object") || types.includes("array")) return JSON.parse(text);
  return text;
}

function argumentsFromUrl(url) {
  const properties = (state.tool && state.tool.inputSchema && state.tool.inputSchema.properties) || {};
  const args = { ...state.args };
  let parsed;
  try {
    parsed = new URL(url, "http://page.invalid/");
  } catch {
    return null;
  }
  for (const key of Object.keys(args)) if (PAGING.includes(key)) delete args[key];
  for (const [key, value] of parsed.searchParams) {
    const types = typesOf(fieldSchema(properties[key] || {}, state.tool.inputSchema));
    args[key] = types.includes("integer") || types.includes("number") ? Number(value) : value;
  }
  return args;
}

// ---- the three kinds ---------------------------------------------------------------------

function statusLine() {
  return h("div", {
    class: `status ${state.tone}`,
    role: state.tone === "error" ? "alert" : "status",
    "aria-live": "polite",
    text: state.message || "",
  });
}

function errorBlock(result) {
  const error = errorOf(result);
  const detail = error.data && error.data.detail;
  const lines = [error.message || t("error")];
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    for (const [field, messages] of Object.entries(detail)) lines.push(`${field}: ${display(messages)}`);
  } else if (detail) lines.push(display(detail));
  return h("div", { class: "error", role: "alert" }, ...lines.map((line) => h("div", { text: line })));
}

function renderCollection() {
  const title = (state.tool && (state.tool.title || state.tool.name)) || "";
  const parts = [h("h1", { text: title })];
  const properties = (state.tool && state.tool.inputSchema && state.tool.inputSchema.properties) || {};
  const searchKey = ["search", "q"].find((key) => key in properties);
  if (searchKey && state.tool) {
    const input = h("input", {
      type: "search",
      "aria-label": t("search"),
      placeholder: t("search"),
      value: state.args[searchKey] ?? "",
    });
    const submit = () => {
      const args = argumentsFromUrl("?") || {};
      if (input.value) args[searchKey] = input.value;
      else delete args[searchKey];
      callTool(args);
    };
    input.addEventListener("keydown", (event) => event.key === "Enter" && submit());
    parts.push(h("div", { class: "bar" }, h("div", { class: "grow" }, input),
      h("button", { type: "button", onclick: submit, text: t("searchButton") })));
  }
  if (state.tool) parts.push(...filterBars(properties, searchKey));
  parts.push(statusLine());
  if (!state.result) {
    parts.push(h("div", { class: "status", text: t("loading") }));
    return parts;
  }
  if (state.result.isError) {
    parts.push(errorBlock(state.result));
    return parts;
  }
  const data = dataOf(state.result);
  const page = Array.isArray(data) ? { results: data } : data && typeof data === "object" ? data : {};
  const rows = Array.isArray(page.results) ? page.results : [];
  const schema = itemSchema(state.tool && state.tool.outputSchema, true);
  const columns = schema ? Object.keys(schema.properties) : [];
  for (const row of rows) {
    if (row && typeof row === "object") for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  const head = h("tr", {}, ...columns.map((column) => h("th", { scope: "col", text: column })));
  const body = h("tbody", {});
  if (!rows.length) {
    body.append(h("tr", {}, h("td", { class: "empty", colspan: Math.max(columns.length, 1), text: t("empty") })));
  }
  for (const row of rows) {
    body.append(h("tr", {}, ...columns.map((column) => h("td", { text: display(row && row[column]) }))));
  }
  parts.push(h("div", { class: "scroll", "aria-busy": state.busy ? "true" : "false" },
    h("table", {}, h("thead", {}, head), body)));
  const nav = h("div", { class: "bar" });
  if (typeof page.count === "number") nav.append(h("span", { class: "grow", text: t("count", { count: page.count }) }));
  else nav.append(h("span", { class: "grow" }));
  for (const [key, label] of [["previous", t("previous")], ["next", t("next")]]) {
    if (!("next" in page || "previous" in page) || !state.tool) continue;
    const target = page[key];
    nav.append(h("button", {
      type: "button",
      disabled: !target || state.busy,
      onclick: () => {
        const args = argumentsFromUrl(target);
        if (args) callTool(args);
      },
      text: label,
    }));
  }
  parts.push(nav);
  return parts;
}

// The list tool's other arguments as filters: one chosen by name, its value in a control of
// its type, added to the call; the filters in use as buttons that take them off. A choice of
// sort orders (an "ordering" argument with choices) is a select of its own. An argument the
// call needs (a path parameter) keeps the value the page was opened with.
function filterBars(properties, searchKey) {
  const top = state.tool.inputSchema;
  const required = (top && top.required) || [];
  const names = Object.keys(properties).filter(
    (key) => key !== searchKey && !PAGING.includes(key) && !required.includes(key),
  );
  const schemaOf = (name) => {
    const schema = fieldSchema(properties[name], top);
    // yes or no, or no filter at all: a checkbox could not say the last
    return typesOf(schema).includes("boolean") && !schema.enum ? { ...schema, enum: [true, false] } : schema;
  };
  const call = (change) => {
    const args = argumentsFromUrl("?") || {};
    change(args);
    callTool(args);
  };
  const bars = [];
  const ordering = names.includes("ordering") ? schemaOf("ordering") : null;
  const filters = names.filter((name) => !(ordering && ordering.enum && name === "ordering"));
  if (filters.length) {
    const chosen = filters.includes(state.filter) ? state.filter : filters[0];
    const picker = h("select", { "aria-label": t("filterField") },
      ...filters.map((name) => h("option", { value: name, selected: name === chosen, text: name,
        title: properties[name].description || undefined })));
    picker.addEventListener("change", () => {
      state.filter = picker.value;
      render();
    });
    const schema = schemaOf(chosen);
    let input = control(`filter-${chosen}`, schema, state.args[chosen], true);
    if (input.tagName === "TEXTAREA" && !typesOf(schema).some((type) => type === "object" || type === "array")) {
      input = h("input", { id: input.id, type: "text", value: state.args[chosen] ?? "" }); // one line of text
    }
    input.setAttribute("aria-label", t("filterValue", { name: chosen }));
    const add = () => {
      let value;
      try {
        value = typedValue(input.value, schema);
      } catch {
        state.message = t("invalidJson");
        state.tone = "error";
        render();
        return;
      }
      if (value === undefined) return;
      state.filter = chosen;
      call((args) => {
        args[chosen] = value;
      });
    };
    input.addEventListener("keydown", (event) => event.key === "Enter" && input.tagName !== "TEXTAREA" && add());
    bars.push(h("div", { class: "bar" }, picker, h("div", { class: "grow" }, input),
      h("button", { type: "button", onclick: add, disabled: state.busy, text: t("addFilter") })));
    const active = filters.filter((name) => state.args[name] !== undefined);
    if (active.length) {
      bars.push(h("div", { class: "bar" }, ...active.map((name) => h("button", {
        type: "button",
        class: "chip",
        disabled: state.busy,
        "aria-label": t("removeFilter", { name, value: display(state.args[name]) }),
        onclick: () => call((args) => {
          delete args[name];
        }),
        text: `${name}: ${display(state.args[name])} ✕`,
      }))));
    }
  }
  if (ordering && ordering.enum) {
    const sort = control("ordering", ordering, state.args.ordering, false);
    sort.setAttribute("aria-label", t("sort"));
    sort.addEventListener("change", () => call((args) => {
      const value = typedValue(sort.value, ordering);
      if (value === undefined) delete args.ordering;
      else args.ordering = value;
    }));
    bars.push(h("div", { class: "bar" }, h("label", { for: "field-ordering", text: t("sort") }), sort));
  }
  return bars;
}

// A record's fields that name a related object, and the tool that reads it: the server's
// result _meta (mcp_bridge.ui.links), {field: {tool, argument, title}}.
function linksOf(result) {
  const links = result && result._meta && result._meta["mcp-bridge/links"];
  return links && typeof links === "object" && !Array.isArray(links) ? links : {};
}

function recordList(data, schema, links = {}) {
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    return h("div", { class: "json", text: display(data) });
  }
  const keys = schema ? Object.keys(schema.properties).filter((key) => key in data) : [];
  for (const key of Object.keys(data)) if (!keys.includes(key)) keys.push(key);
  const list = h("dl", {});
  for (const key of keys) {
    const value = data[key];
    const link = Object.hasOwn(links, key) ? links[key] : null;
    const linkable = link && typeof link.tool === "string" && typeof link.argument === "string";
    const shown =
      linkable && (typeof value === "number" || typeof value === "string") && value !== ""
        ? h("button", {
            type: "button",
            class: "link",
            text: display(value),
            "aria-label": t("openRelated", { field: key, value: display(value) }),
            disabled: state.busy,
            onclick: () => openRelated(link, value),
          })
        : display(value);
    list.append(h("dt", { text: key }), h("dd", {}, shown));
  }
  return list;
}

// Read a related object through the tool that reads it, as the person's own call through the
// host, and show it as a record; Back returns to the one before.
async function openRelated(link, value) {
  state.busy = true;
  state.message = t("loading");
  state.tone = "";
  render();
  try {
    const result = await app.callServerTool({ name: link.tool, arguments: { [link.argument]: value } });
    state.trail.push({ title: typeof link.title === "string" ? link.title : link.tool, result });
    state.message = null;
  } catch (error) {
    state.message = t("failed", { message: error && error.message ? error.message : String(error) });
    state.tone = "error";
  } finally {
    state.busy = false;
    render();
    const back = root.querySelector("button.back");
    if (back) back.focus();
  }
}

function renderRecord() {
  if (state.trail.length) {
    const { title, result } = state.trail[state.trail.length - 1];
    const back = h("button", {
      type: "button",
      class: "back",
      text: `← ${t("back")}`,
      onclick: () => {
        state.trail.pop();
        state.message = null;
        render();
      },
    });
    const parts = [back, h("h1", { text: title }), statusLine()];
    parts.push(result.isError ? errorBlock(result) : recordList(dataOf(result), null, linksOf(result)));
    return parts;
  }
  const parts = [h("h1", { text: (state.tool && (state.tool.title || state.tool.name)) || "" }), statusLine()];
  if (!state.result) parts.push(h("div", { class: "status", text: t("loading") }));
  else if (state.result.isError) parts.push(errorBlock(state.result));
  else parts.push(recordList(dataOf(state.result), itemSchema(state.tool && state.tool.outputSchema, false), linksOf(state.result)));
  return parts;
}

// A field's messages: the view's validation errors (data.detail, as DRF answers them), or the
// bridge's own checks of the arguments against the inputSchema (data.errors).
function fieldErrors(result) {
  if (!result || !result.isError) return {};
  const error = errorOf(result);
  const detail = error.data && error.data.detail;
  if (detail && typeof detail === "object" && !Array.isArray(detail)) return detail;
  const found = {};
  for (const item of (error.data && Array.isArray(error.data.errors) ? error.data.errors : [])) {
    if (item && item.argument) (found[item.argument] = found[item.argument] || []).push(String(item.message));
  }
  return found;
}

// A file argument of an upload tool: its forms (anyOf) include base64 text, which a file input
// fills (the bridge sends the view a multipart request).
function isFile(schema) {
  return Array.isArray(schema.anyOf) &&
    schema.anyOf.some((form) => form && form.type === "string" && form.contentEncoding === "base64");
}

async function fileArgument(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  const argument = { data: btoa(binary), filename: file.name };
  if (file.type) argument.mimeType = file.type;
  return argument;
}

function control(name, schema, value, required) {
  const types = typesOf(schema);
  const common = { id: `field-${name}`, name, required: required || undefined };
  if (isFile(schema)) {
    const media = schema.anyOf.find((form) => form && form.contentMediaType);
    const accept = media && media.contentMediaType !== "application/octet-stream" ? media.contentMediaType : undefined;
    return h("input", { ...common, type: "file", accept });
  }
  if (Array.isArray(schema.enum)) {
    const select = h("select", common);
    if (!required || value === undefined) select.append(h("option", { value: "", text: "—" }));
    for (const choice of schema.enum) {
      if (choice === null) continue;
      select.append(h("option", { value: String(choice), selected: String(value) === String(choice), text: String(choice) }));
    }
    return select;
  }
  if (types.includes("boolean")) return h("input", { ...common, type: "checkbox", checked: value === true, required: undefined });
  if (types.includes("integer") || types.includes("number")) {
    return h("input", { ...common, type: "number", step: types.includes("integer") ? "1" : "any",
      min: schema.minimum, max: schema.maximum, value: value ?? "" });
  }
  if (types.includes("object") || types.includes("array")) {
    return h("textarea", { ...common, rows: 3, class: "json", text: value === undefined ? "" : JSON.stringify(value) });
  }
  // A serializer field with style={"input_type": "password"} is drf-spectacular's format "password".
  const type = { email: "email", uri: "url", date: "date", password: "password" }[schema.format];
  if (!type && (!schema.maxLength || schema.maxLength > 200)) {
    return h("textarea", { ...common, rows: 3, text: value ?? "" });
  }
  return h("input", { ...common, type: type || "text", maxlength: schema.maxLength, value: value ?? "",
    autocomplete: type === "password" ? "new-password" : undefined });
}

function readForm(form, properties, required) {
  const args = {};
  const problems = {};
  for (const [name, raw] of Object.entries(properties)) {
    const schema = fieldSchema(raw, state.tool.inputSchema);
    const types = typesOf(schema);
    const input = form.elements.namedItem(name);
    if (!input) continue;
    if (isFile(schema)) {
      // Read when the form is sent (fileArgument); else the value the call was made with.
      if (input.files && input.files.length) args[name] = input.files[0];
      else if (state.args[name] !== undefined) args[name] = state.args[name];
      continue;
    }
    if (types.includes("boolean") && !schema.enum) {
      args[name] = input.checked;
      continue;
    }
    const text = input.value;
    if (text === "") {
      if (required.includes(name) && types.includes("string") && !schema.enum) args[name] = "";
      continue;
    }
    try {
      args[name] = typedValue(text, schema);
    } catch {
      problems[name] = [t("invalidJson")];
    }
  }
  return { args, problems };
}

function renderForm() {
  const tool = state.tool;
  const parts = [h("h1", { text: (tool && (tool.title || tool.name)) || "" })];
  if (!tool) {
    parts.push(statusLine());
    if (state.result) parts.push(state.result.isError ? errorBlock(state.result) : recordList(dataOf(state.result), null));
    else parts.push(h("div", { class: "status", text: t("loading") }));
    return parts;
  }
  const properties = (tool.inputSchema && tool.inputSchema.properties) || {};
  const required = (tool.inputSchema && tool.inputSchema.required) || [];
  const errors = { ...fieldErrors(state.result), ...(state.localErrors || {}) };
  const form = h("form", { novalidate: true, "aria-busy": state.busy ? "true" : "false" });
  let first = null;
  for (const [name, raw] of Object.entries(properties)) {
    const schema = fieldSchema(raw, tool.inputSchema);
    if (schema.readOnly) continue;
    const isRequired = required.includes(name);
    // The value the call was made with, else the field's default (a ticked box, a choice).
    const value = Object.prototype.hasOwnProperty.call(state.args, name) ? state.args[name] : schema.default;
    const input = control(name, schema, value, isRequired);
    const messages = errors[name];
    const field = h("div", { class: `field${messages ? " invalid" : ""}` },
      h("label", { for: `field-${name}` }, schema.title || name,
        isRequired ? h("span", { class: "req", title: t("required"), text: " *" }) : null),
      input);
    // A file argument's description ends with how a model sends a file (the build's FILE_TEXT,
    // mcp_bridge.build.openrpc), which a person choosing a file has no use for.
    const help = isFile(schema)
      ? String(schema.description || "").replace(/\s*A file: its bytes in base64[\s\S]*$/, "")
      : schema.description;
    if (help) {
      input.setAttribute("aria-describedby", `help-${name}`);
      field.append(h("div", { class: "help", id: `help-${name}`, text: help }));
    }
    if (messages) {
      input.setAttribute("aria-invalid", "true");
      field.append(h("div", { class: "error", role: "alert", text: display(Array.isArray(messages) ? messages.join(" ") : messages) }));
      first = first || input;
    }
    form.append(field);
  }
  const others = Object.entries(errors).filter(([name]) => !(name in properties));
  if (state.result && state.result.isError && !Object.keys(fieldErrors(state.result)).length) parts.push(errorBlock(state.result));
  for (const [name, messages] of others) {
    parts.push(h("div", { class: "error", role: "alert", text: `${name === "non_field_errors" ? "" : `${name}: `}${display(Array.isArray(messages) ? messages.join(" ") : messages)}` }));
  }
  form.append(h("div", { class: "bar" }, h("button", { type: "submit", class: "primary", disabled: state.busy, text: t("submit") })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const { args, problems } = readForm(form, properties, required);
    for (const [name, value] of Object.entries(args)) {
      if (value instanceof File) args[name] = await fileArgument(value);
    }
    state.localErrors = problems;
    if (Object.keys(problems).length) {
      state.args = args;
      render();
      return;
    }
    callTool(args).then(() => {
      if (state.result && !state.result.isError) {
        state.message = t("saved");
        state.tone = "ok";
        render();
      }
    });
  });
  parts.push(statusLine(), form);
  if (state.result && !state.result.isError && state.tone === "ok") {
    parts.push(recordList(dataOf(state.result), itemSchema(tool.outputSchema, false)));
  }
  if (first) queueMicrotask(() => first.focus());
  return parts;
}

// ---- a person confirms the call (the host cannot ask them) -------------------------------
//
// A call of a tool that asks a person to confirm it, from a host that cannot ask, answers an
// error whose _meta carries the question, the call and a signed single-use state (never its
// text, which the model reads). The page shows the question; Confirm calls the server's
// app-only confirming tool with them, Cancel does nothing on the server.

const CONFIRMATION_KEY = "mcp-bridge/confirmation";

function confirmationOf(result) {
  const asked = result && result._meta && result._meta[CONFIRMATION_KEY];
  return asked && typeof asked === "object" && typeof asked.state === "string" ? asked : null;
}

function tellModel(text) {
  // What the person decided reaches the model in its next turn, where the host supports it.
  if (typeof app.updateModelContext === "function") {
    app.updateModelContext({ content: [{ type: "text", text }] }).catch(() => {});
  }
}

async function confirmCall() {
  const asked = state.confirm;
  if (!asked || state.busy) return;
  state.busy = true;
  state.message = t("loading");
  state.tone = "";
  render();
  let result = null;
  let failure = null;
  let refusal = null;
  try {
    result = await app.callServerTool({
      name: asked.tool,
      arguments: { name: asked.name, arguments: asked.arguments, confirmation: asked.state },
    });
  } catch (error) {
    failure = error && error.message ? error.message : String(error);
    // Why the server refused it, in the person's language when the page knows the reason.
    const reason = error && error.data && error.data.reason;
    refusal = (reason && TEXTS[`refused.${reason}`]) || null;
  }
  if (failure === null) {
    // The view ran: its result, or its own error (a form shows it beside the fields).
    state.confirm = confirmationOf(result);
    state.args = asked.arguments;
    state.result = result;
    state.message = result.isError ? null : t("saved");
    state.tone = result.isError ? "" : "ok";
    tellModel(t("confirmedModel", { question: asked.question }));
  } else {
    // The server refused the confirmation (it came too late, it was used): nothing ran. The
    // call is asked again, for a fresh confirmation, with the reason shown.
    state.confirm = null;
    try {
      const again = await app.callServerTool({ name: asked.name, arguments: asked.arguments });
      state.confirm = confirmationOf(again);
      state.result = again;
    } catch {
      state.result = null;
    }
    state.message = refusal || t("failed", { message: failure });
    state.tone = "error";
  }
  state.busy = false;
  render();
}

function cancelCall() {
  const asked = state.confirm;
  if (!asked || state.busy) return;
  state.confirm = null;
  state.cancelled = true;
  state.args = asked.arguments;
  state.result = null;
  state.message = t("notConfirmed");
  state.tone = "";
  tellModel(t("cancelledModel", { question: asked.question }));
  render();
}

// The call's arguments as the person reads them; a password's value is not shown.
function argumentsShown(args) {
  const properties = (state.tool && state.tool.inputSchema && state.tool.inputSchema.properties) || {};
  if (!args || typeof args !== "object" || Array.isArray(args)) return args;
  const shown = {};
  for (const [name, value] of Object.entries(args)) {
    const schema = fieldSchema(properties[name] || {}, state.tool && state.tool.inputSchema);
    if (schema.format === "password" && value) shown[name] = "••••••••";
    else if (isFile(schema) && value) shown[name] = (value && value.filename) || "(file)";
    else shown[name] = value;
  }
  return shown;
}

function renderConfirmation() {
  const asked = state.confirm;
  const title = (state.tool && (state.tool.title || state.tool.name)) || asked.name;
  const panel = h("section", { class: "confirm", role: "group", "aria-labelledby": "confirm-question" },
    h("p", { id: "confirm-question", class: "question", text: asked.question }),
    recordList(argumentsShown(asked.arguments), null),
    h("div", { class: "bar" },
      h("button", { type: "button", class: asked.destructive ? "primary danger" : "primary",
        disabled: state.busy, onclick: confirmCall, text: t("confirm") }),
      h("button", { type: "button", disabled: state.busy, onclick: cancelCall, text: t("cancel") })));
  if (!state.busy) queueMicrotask(() => panel.querySelector("button:last-child").focus());
  return [h("h1", { text: title }), statusLine(), panel];
}

// What a control is, across renders (each render makes the page's elements anew).
function focusKey(element) {
  return element.id || element.getAttribute("aria-label") || `${element.tagName}:${element.textContent}`;
}

function render() {
  let parts;
  if (state.confirm) parts = renderConfirmation();
  else if (state.cancelled && KIND !== "form") parts = [h("h1", { text: (state.tool && (state.tool.title || state.tool.name)) || "" }), statusLine()];
  else parts = { collection: renderCollection, record: renderRecord, form: renderForm }[KIND]();
  const active = document.activeElement;
  if (active && active !== root && root.contains(active)) state.focus = focusKey(active);
  root.replaceChildren(...parts);
  // Keyboard focus stays on the control that was used (a filter chosen, a page turned), once
  // it can take focus again; the record's Back and the confirmation set their own after this.
  const again = state.focus && [...root.querySelectorAll("button, input, select, textarea")]
    .find((element) => focusKey(element) === state.focus);
  if (again && !again.disabled) again.focus();
}

// ---- the host ----------------------------------------------------------------------------

function applyContext(context) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles && context.styles.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles && context.styles.css && context.styles.css.fonts) applyHostFonts(context.styles.css.fonts);
  if (context.locale) document.documentElement.lang = context.locale;
  if (context.toolInfo && context.toolInfo.tool && !state.proxied) state.tool = context.toolInfo.tool;
}

// Opened by a call proxy: the page becomes the page of the tool the proxy ran, with the
// arguments the proxy passed it, and calls that tool by its name from then on.
function takeProxiedTool(result) {
  const proxied = result && result._meta && result._meta["mcp-bridge/tool"];
  if (!proxied || typeof proxied !== "object" || typeof proxied.name !== "string") return;
  const input = state.args || {};
  let args = input.name === proxied.name ? input.arguments : undefined;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args || "{}");
    } catch {
      args = {};
    }
  }
  state.args = args && typeof args === "object" && !Array.isArray(args) ? args : {};
  state.tool = proxied;
  state.proxied = true;
  if (["collection", "record", "form"].includes(proxied.kind)) KIND = proxied.kind;
}

const app = new App({ name: `mcp-bridge-${KIND}`, version: "1.0.0" }, {});
app.ontoolinput = (params) => {
  state.args = (params && params.arguments) || {};
  render();
};
app.ontoolresult = (result) => {
  takeProxiedTool(result);
  state.result = result;
  state.trail = [];
  state.confirm = confirmationOf(result);
  state.message = null;
  state.tone = KIND === "form" && !result.isError ? "ok" : "";
  if (state.tone === "ok") state.message = t("saved");
  render();
};
app.ontoolcancelled = () => {
  state.message = t("cancelled");
  state.tone = "error";
  render();
};
app.onhostcontextchanged = (context) => {
  applyContext(context);
  render();
};

render();
app.connect().then(
  () => {
    applyContext(app.getHostContext());
    render();
  },
  (error) => {
    state.message = t("failed", { message: error && error.message ? error.message : String(error) });
    state.tone = "error";
    render();
  },
);
