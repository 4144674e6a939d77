// An army built in a form made from its format's JSON Schema (GET /api/rulesets/GAME/schema):
// objects become fieldsets, arrays lists with add and remove, enums selects, numbers and text
// inputs with the schema's limits; a oneOf (a squad, a vehicle or a gun) is chosen by its const.
// Every input carries the path the server's errors name ("units[0].members[2].armour"), so an
// error is shown at its field.  Plain JS, no build step; referee.js gives `el` and `t`.
"use strict";

function pathText(path) {
  return path.reduce((text, key) => (typeof key === "number" ? `${text}[${key}]` : text ? `${text}.${key}` : key), "");
}

function variants(schema) { return schema.oneOf || schema.anyOf || null; }

function constants(schema) {  // a variant's const properties: how a value shows which it is
  return Object.entries(schema.properties || {}).filter(([, s]) => "const" in s).map(([k, s]) => [k, s.const]);
}

function typeOf(value) {
  return Array.isArray(value) ? "array" : value === null ? "null" : Number.isInteger(value) ? "integer" : typeof value;
}

function fits(schema, value) {
  const type = schema.type || (schema.properties ? "object" : null);
  const types = Array.isArray(type) ? type : type ? [type] : null;
  if (types && !types.some((t_) => t_ === typeOf(value) || (t_ === "number" && typeof value === "number"))) return false;
  if (typeOf(value) === "object") return constants(schema).every(([k, c]) => value[k] === c);
  return true;
}

function chosen(schema, value) {
  const options = variants(schema);
  if (!options) return schema;
  return options.find((option) => fits(option, value)) || options[0];
}

function blank(schema) {
  if ("const" in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (variants(schema)) return blank(variants(schema)[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type || (schema.properties ? "object" : "string");
  if (type === "object") {
    return Object.fromEntries((schema.required || []).map((key) => [key, blank(schema.properties[key] || {})]));
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "integer" || type === "number") return schema.minimum ?? 0;
  return "";
}

function variantLabel(option, k) {
  const named = constants(option).map(([, c]) => c).join(" ");
  return option.title || named || (option.type ? String(option.type) : `${k + 1}`);
}

// One field: ``value`` at ``path`` under ``schema``; ``set(newValue)`` writes it back.
function schemaField(schema, value, path, set, label) {
  const options = variants(schema);
  if (options) {
    const current = chosen(schema, value);
    const picker = el("select", { class: "variant", "data-path": `${pathText(path)}#variant`, "aria-label": t("kind") },
      ...options.map((option, k) => el("option", { value: k }, variantLabel(option, k))));
    picker.value = options.indexOf(current);
    picker.addEventListener("change", () => set(blank(options[Number(picker.value)])));
    const inner = schemaField({ ...current, oneOf: undefined, anyOf: undefined }, value, path, set, label);
    return el("div", { class: "variant-field" }, picker, inner);
  }
  const where = pathText(path);
  const title = el("span", { class: "field-name", title: schema.description || "" }, label ?? "");
  if ("const" in schema) return el("label", { class: "field const" }, title, " ", el("code", {}, String(schema.const)));
  if (schema.enum) {
    const select = el("select", { "data-path": where }, ...schema.enum.map((v) => el("option", { value: JSON.stringify(v) }, String(v))));
    select.value = JSON.stringify(value);
    select.addEventListener("change", () => set(JSON.parse(select.value)));
    return el("label", { class: "field" }, title, " ", select);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type || (schema.properties ? "object" : "string");
  if (type === "object") return objectField(schema, value || {}, path, set, label);
  if (type === "array") return arrayField(schema, value || [], path, set, label);
  let input;
  if (type === "boolean") {
    input = el("input", { type: "checkbox", "data-path": where });
    input.checked = Boolean(value);
    input.addEventListener("change", () => set(input.checked));
  } else if (type === "integer" || type === "number") {
    input = el("input", { type: "number", "data-path": where, step: type === "integer" ? 1 : "any" });
    if (schema.minimum !== undefined) input.min = schema.minimum;
    if (schema.maximum !== undefined) input.max = schema.maximum;
    input.value = value ?? "";
    input.addEventListener("change", () => set(input.value === "" ? undefined : Number(input.value)));
  } else {
    input = el("input", { "data-path": where });
    if (schema.pattern) input.pattern = schema.pattern.replace(/^\^|\$$/g, "");
    input.value = value ?? "";
    input.addEventListener("change", () => {
      const number = Array.isArray(schema.type) && schema.type.includes("integer") && /^\d+$/.test(input.value);
      set(number ? Number(input.value) : input.value);
    });
  }
  return el("label", { class: "field" }, title, " ", input);
}

function objectField(schema, value, path, set, label) {
  const box = el("fieldset", { class: "object", "data-path": pathText(path) });
  if (label !== undefined) box.append(el("legend", {}, label));
  const required = schema.required || [];
  const missing = [];
  for (const [key, sub] of Object.entries(schema.properties || {})) {
    if (!(key in value) && !required.includes(key)) { missing.push(key); continue; }
    const row = el("div", { class: "property" }, schemaField(sub, value[key], [...path, key], (v) => {
      const next = { ...value };
      if (v === undefined) delete next[key]; else next[key] = v;
      set(next);
    }, key));
    if (!required.includes(key)) {
      row.append(el("button", { type: "button", class: "remove", "aria-label": t("remove {name}", { name: key }),
        onclick: () => { const next = { ...value }; delete next[key]; set(next); } }, "✕"));
    }
    box.append(row);
  }
  if (missing.length) {
    const adder = el("select", { class: "add-property", "aria-label": t("add a field") },
      el("option", { value: "" }, t("add a field…")), ...missing.map((key) => el("option", { value: key }, key)));
    adder.addEventListener("change", () => {
      if (adder.value) set({ ...value, [adder.value]: blank(schema.properties[adder.value]) });
    });
    box.append(adder);
  }
  return box;
}

function arrayField(schema, value, path, set, label) {
  const box = el("fieldset", { class: "array", "data-path": pathText(path) }, el("legend", {}, label ?? ""));
  const items = schema.items || {};
  value.forEach((item, k) => {
    box.append(el("div", { class: "item" },
      schemaField(items, item, [...path, k], (v) => set(value.map((old, i) => (i === k ? v : old))), `${label ?? ""} ${k + 1}`),
      el("button", { type: "button", class: "remove", "aria-label": t("remove {name}", { name: `${label} ${k + 1}` }),
        onclick: () => set(value.filter((_, i) => i !== k)) }, "✕")));
  });
  if (!(schema.maxItems !== undefined && value.length >= schema.maxItems)) {
    box.append(el("button", { type: "button", class: "add-item", "data-path": `${pathText(path)}#add`,
      onclick: () => set([...value, blank(items)]) }, t("add {name}", { name: label ?? "" })));
  }
  return box;
}

// The form for a whole document; ``changed(document)`` is told every edit.
function renderSchemaForm(container, schema, document_, changed) {
  const draw = (doc) => {
    container.replaceChildren(schemaField(schema, doc, [], (next) => { changed(next); draw(next); }));
  };
  draw(document_);
}

// Show the server's error at its field ("units[0].members[2].armour"), or its nearest parent.
function markField(container, where) {
  for (const node of container.querySelectorAll(".bad")) node.classList.remove("bad");
  let path = where;
  while (path) {
    const field = container.querySelector(`[data-path="${CSS.escape(path)}"]`);
    if (field) { field.classList.add("bad"); field.scrollIntoView({ block: "center" }); return field; }
    path = path.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
  }
  return null;
}
