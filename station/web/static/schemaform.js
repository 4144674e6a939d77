// An army built in a form made from its format's JSON Schema (GET /api/rulesets/GAME/schema, its
// titles in the page's language): objects become fieldsets, arrays lists whose items fold, enums
// selects, numbers and text inputs with the schema's limits and suggestions; a oneOf (a squad, a
// vehicle or a gun) is chosen by its const, and a oneOf that only says which one field must be
// given (a card, a MUL record or a MUL id) by that field.  Every input carries the path the
// server's errors name ("units[0].members[2].armour"), so an error is shown at its field.
// Typing edits the document in place; only adding, removing or switching a kind redraws, so a tap
// on the next field is never lost to a redraw.  Plain JS, no build step; referee.js gives `el`, `t`.
"use strict";

function pathText(path) {
  return path.reduce((text, key) => (typeof key === "number" ? `${text}[${key}]` : text ? `${text}.${key}` : key), "");
}

function variants(schema) { return schema.oneOf || schema.anyOf || null; }

// A oneOf whose options only name the field that must be given ({"required": ["card"]}, ...).
function exclusive(schema) {
  const options = variants(schema);
  const onlyRequired = (o) => o.required && !o.properties && !o.type && !("const" in o);
  return options && schema.properties && options.every(onlyRequired) ? options : null;
}

function constants(schema) {  // a variant's const properties: how a value shows which it is
  return Object.entries(schema.properties || {}).filter(([, s]) => "const" in s).map(([k, s]) => [k, s]);
}

function typeOf(value) {
  return Array.isArray(value) ? "array" : value === null ? "null" : Number.isInteger(value) ? "integer" : typeof value;
}

function fits(schema, value) {
  const type = schema.type || (schema.properties ? "object" : null);
  const types = Array.isArray(type) ? type : type ? [type] : null;
  if (types && !types.some((t_) => t_ === typeOf(value) || (t_ === "number" && typeof value === "number"))) return false;
  if (typeOf(value) === "object") return constants(schema).every(([k, s]) => value[k] === s.const);
  return true;
}

function chosen(schema, value) {
  const options = variants(schema);
  if (!options) return schema;
  return options.find((option) => fits(option, value)) || options[0];
}

function chosenField(options, value) {
  return options.find((option) => option.required.every((key) => value && key in value)) || options[0];
}

function blank(schema) {
  if ("const" in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (exclusive(schema)) {
    const first = exclusive(schema)[0];
    return blank({ ...schema, oneOf: undefined, required: [...(schema.required || []), ...first.required] });
  }
  if (variants(schema)) return blank(variants(schema)[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type || (schema.properties ? "object" : "string");
  if (type === "object") {  // the required fields, and the optional ones with a default (a unit's skill)
    const keys = Object.entries(schema.properties || {})
      .filter(([key, sub]) => (schema.required || []).includes(key) || "default" in sub).map(([key]) => key);
    return Object.fromEntries(keys.map((key) => [key, "default" in schema.properties[key] ? schema.properties[key].default
      : blank(schema.properties[key] || {})]));
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "integer" || type === "number") return schema.minimum ?? 0;
  return "";
}

// What a field is called on the page: the schema's title (the server gives it in the page's
// language), else its key as words.
function fieldLabel(key, schema) { return (schema && schema.title) || String(key).replace(/_/g, " "); }

function variantLabel(option, k) {
  const named = constants(option).map(([, s]) => s["x-const-title"] || s.const).join(" ");
  return option.title || named || (option.type ? String(option.type) : `${k + 1}`);
}

let datalists = 0;
function suggestions(schema, input) {  // a card's name from the library, a MUL id: typed or picked
  if (!schema.examples || !schema.examples.length) return;
  const id = `suggest-${++datalists}`;
  const labels = schema["x-example-labels"] || [];
  input.setAttribute("list", id);
  input.after(el("datalist", { id }, ...schema.examples.map((v, k) => el("option", { value: String(v) }, labels[k] || String(v)))));
}

// One field: the value at ``path`` under ``schema``, written back with form.set(path, value, redraw).
function schemaField(form, schema, path, label) {
  const value = form.get(path);
  if (exclusive(schema)) return objectField(form, schema, path, label);
  const options = variants(schema);
  if (options) {
    const current = chosen(schema, value);
    const picker = el("select", { class: "variant", "data-path": `${pathText(path)}#variant`, "aria-label": t("kind") },
      ...options.map((option, k) => el("option", { value: k }, variantLabel(option, k))));
    picker.value = options.indexOf(current);
    picker.addEventListener("change", () => form.set(path, blank(options[Number(picker.value)]), true));
    const inner = schemaField(form, { ...current, oneOf: undefined, anyOf: undefined }, path, label);
    return el("div", { class: "variant-field" }, picker, inner);
  }
  const where = pathText(path);
  const title = el("span", { class: "field-name", title: schema.description || "" }, label ?? "");
  if ("const" in schema) return el("div", { class: "field const" }, title, " ", el("code", {}, schema["x-const-title"] || String(schema.const)));
  if (schema.enum) {
    const names = schema["x-enum-titles"] || [];
    const select = el("select", { "data-path": where }, ...schema.enum.map((v, k) => el("option", { value: JSON.stringify(v) }, names[k] || String(v))));
    select.value = JSON.stringify(value);
    select.addEventListener("change", () => form.set(path, JSON.parse(select.value)));
    return el("label", { class: "field" }, title, " ", select);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type || (schema.properties ? "object" : "string");
  if (type === "object") return objectField(form, schema, path, label);
  if (type === "array") return arrayField(form, schema, path, label);
  let input;
  if (type === "boolean") {
    input = el("input", { type: "checkbox", "data-path": where });
    input.checked = Boolean(value);
    input.addEventListener("change", () => form.set(path, input.checked));
    return el("label", { class: "field check" }, input, " ", title);
  }
  if (type === "integer" || type === "number") {
    input = el("input", { type: "number", "data-path": where, step: type === "integer" ? 1 : "any", inputmode: type === "integer" ? "numeric" : "decimal" });
    if (schema.minimum !== undefined) input.min = schema.minimum;
    if (schema.maximum !== undefined) input.max = schema.maximum;
    input.value = value ?? "";
    input.addEventListener("change", () => {
      form.set(path, input.value === "" ? undefined : Number(input.value));
      form.checked(input);
    });
  } else {
    input = el("input", { "data-path": where });
    if (schema.pattern) input.pattern = schema.pattern.replace(/^\^|\$$/g, "");
    input.value = value ?? "";
    input.addEventListener("change", () => {
      const number = Array.isArray(schema.type) && schema.type.includes("integer") && /^\d+$/.test(input.value);
      form.set(path, number ? Number(input.value) : input.value);
      form.checked(input);
    });
  }
  const field = el("label", { class: "field" }, title, " ", input);
  suggestions(schema, input);
  return field;
}

function removeButton(name, onclick) {
  return el("button", { type: "button", class: "remove", "aria-label": t("remove {name}", { name }), title: t("remove {name}", { name }), onclick }, "✕");
}

function objectField(form, schema, path, label) {
  const value = form.get(path) || {};
  const box = el("fieldset", { class: "object", "data-path": pathText(path) });
  if (label !== undefined) box.append(el("legend", {}, label));
  let required = schema.required || [];
  let properties = Object.entries(schema.properties || {});
  const options = exclusive(schema);
  if (options) {  // which one field is given: the others are not offered
    const current = chosenField(options, value);
    const others = options.filter((o) => o !== current).flatMap((o) => o.required);
    required = [...required, ...current.required];
    properties = properties.filter(([key]) => !others.includes(key));
    const picker = el("select", { class: "variant", "data-path": `${pathText(path)}#variant`, "aria-label": t("kind") },
      ...options.map((o, k) => el("option", { value: k }, o.required.map((key) => fieldLabel(key, schema.properties[key])).join(", "))));
    picker.value = options.indexOf(current);
    picker.addEventListener("change", () => {
      const next = { ...value };
      for (const key of options.flatMap((o) => o.required)) delete next[key];
      for (const key of options[Number(picker.value)].required) next[key] = blank(schema.properties[key] || {});
      form.set(path, next, true);
    });
    box.append(el("label", { class: "field" }, el("span", { class: "field-name" }, t("given as")), " ", picker));
  }
  const missing = [];
  for (const [key, sub] of properties) {
    if (!(key in value) && !required.includes(key)) { missing.push(key); continue; }
    const row = el("div", { class: "property" }, schemaField(form, sub, [...path, key], fieldLabel(key, sub)));
    if (!required.includes(key)) {
      row.append(removeButton(fieldLabel(key, sub), () => {
        const next = { ...value };
        delete next[key];
        form.set(path, next, true);
      }));
    }
    box.append(row);
  }
  if (missing.length) {
    const adder = el("select", { class: "add-property", "aria-label": t("add a field") },
      el("option", { value: "" }, t("add a field…")),
      ...missing.map((key) => el("option", { value: key }, fieldLabel(key, schema.properties[key]))));
    adder.addEventListener("change", () => {
      if (adder.value) form.set(path, { ...value, [adder.value]: blank(schema.properties[adder.value]) }, true);
    });
    box.append(adder);
  }
  return box;
}

// What a folded item says of itself: its name or id, so a long list can be scanned folded.
function itemName(item) {
  const name = item && typeof item === "object" ? item.name || item.id || item.card || "" : "";
  return name ? `«${name}»` : "";
}

function arrayField(form, schema, path, label) {
  const value = form.get(path) || [];
  const box = el("fieldset", { class: "array", "data-path": pathText(path) }, el("legend", {}, label ?? ""));
  const items = schema.items || {};
  const folds = items.type === "object" || items.properties || variants(items);
  const one = (k) => `${fieldLabel("", items) || label || ""} ${k + 1}`.trim();
  value.forEach((item, k) => {
    const itemPath = [...path, k];
    const remove = removeButton(one(k), () => form.set(path, value.filter((_, i) => i !== k), true));
    const field = schemaField(form, items, itemPath, folds ? undefined : one(k));  // a fold's summary names it
    if (!folds) {
      box.append(el("div", { class: "item" }, field, remove));
      return;
    }
    const where = pathText(itemPath);
    const fold = el("details", { class: "fold", "data-fold": where },
      el("summary", {}, [one(k), itemName(item)].filter(Boolean).join(" ")), field, remove);
    fold.open = form.open.has(where);
    box.append(fold);
  });
  if (!(schema.maxItems !== undefined && value.length >= schema.maxItems)) {
    box.append(el("button", { type: "button", class: "add-item", "data-path": `${pathText(path)}#add`,
      onclick: () => {
        form.open.add(pathText([...path, value.length]));  // the new item opens, ready to fill in
        form.set(path, [...value, blank(items)], true);
      } }, t("add {name}", { name: label ?? "" })));
  }
  return box;
}

// The form for a whole document; ``changed(document)`` is told every edit.  Folded items stay as
// the referee left them across redraws: each redraw reads which are open from the page itself.
function renderSchemaForm(container, schema, document_, changed, lead = () => "") {
  const form = { doc: document_, open: new Set() };  // and the one just added, opened by add-item
  form.checked = (input) => {  // a value the field cannot take is said under it at once
    const problem = fieldProblem(input);
    if (problem) sayAtField(input, problem, lead());
    else if (input.getAttribute("aria-invalid")) clearFieldErrors(container);
  };
  form.get = (path) => path.reduce((node, key) => (node == null ? undefined : node[key]), form.doc);
  form.set = (path, value, redraw = false) => {
    if (!path.length) form.doc = value;
    else {
      let node = form.doc;
      for (const [k, key] of path.slice(0, -1).entries()) {
        if (node[key] == null) node[key] = typeof path[k + 1] === "number" ? [] : {};
        node = node[key];
      }
      if (value === undefined) delete node[path.at(-1)]; else node[path.at(-1)] = value;
    }
    changed(form.doc);
    if (redraw) draw();
  };
  const draw = () => {
    for (const fold of container.querySelectorAll("details.fold")) {  // as they are now, toggle events pending or not
      if (fold.open) form.open.add(fold.dataset.fold); else form.open.delete(fold.dataset.fold);
    }
    container.replaceChildren(schemaField(form, schema, []));
  };
  draw();
}

// Show an error at its field ("units[0].members[2].armour"), or its nearest parent, unfolding
// the items it is in: ``text`` under the field, led by ``lead`` (the army) and where it is in the
// form's own words.  Returns the field, or null when the form has nothing at that path.
function markField(container, where, text, lead = "") {
  let path = where;
  while (path) {
    const field = container.querySelector(`[data-path="${CSS.escape(path)}"]`);
    if (field) {
      for (let fold = field.closest("details"); fold; fold = fold.parentElement.closest("details")) fold.open = true;
      sayAtField(field, text, lead);
      return field;
    }
    path = path.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
  }
  return null;
}

// ``text`` under a field of the form, led by ``lead`` (the army) and where the field is.
function sayAtField(field, text, lead = "") {
  return showAtField(field, text, [lead, fieldWords(field)].filter(Boolean).join(": "));
}

// Where a field is, in the form's words: each folded item it is in (its summary, «отряд 1
// «Киборги»»), then the field's own name («сила»).
function fieldWords(field) {
  const folds = [];
  for (let fold = field.closest("details.fold"); fold; fold = fold.parentElement.closest("details.fold")) {
    folds.unshift(fold.querySelector(":scope > summary").textContent);
  }
  const own = field.closest(".field");
  const name = own ? own.querySelector(".field-name") : field.matches("fieldset") ? field.querySelector(":scope > legend") : null;
  const named = name && !folds.includes(name.textContent) ? name.textContent : "";
  return [folds.join(", "), named].filter(Boolean).join(": ");
}

// The first field the browser itself finds wrong (a number past its limits, a text not of its
// pattern), said as the server would say it, so the referee hears of it before saving.
function fieldProblem(input) {
  const v = input.validity;
  if (v.rangeOverflow || v.rangeUnderflow) return t("is {value}; expected {low} to {high}", { value: input.value, low: input.min || "…", high: input.max || "…" });
  if (v.badInput || v.stepMismatch) return t("must be {kinds}, not {kind}", { kinds: t(input.step === "1" ? "a whole number" : "a number"), kind: input.value || "?" });
  if (v.patternMismatch) return t("'{value}' does not have the form this field takes", { value: input.value });
  return null;
}

function firstFormProblem(container) {
  for (const input of container.querySelectorAll("input")) {
    const problem = fieldProblem(input);
    if (problem) return { input, problem };
  }
  return null;
}
