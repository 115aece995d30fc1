// The dashboard's drill-down: from a model's score to its kinds, to the
// questions behind a kind, to one question with every variant, answer and
// verdict. Views live in the URL's fragment, so the browser's back button
// and a shared link work:
//
//   #/model?model=M&window=W            a model's scores per axis and kind
//   #/questions?model=…&kind=…&…        the questions behind a score
//   #/question?id=Q&model=M              one question
//
// The page script (index.html) links its scores here with drillHref. All
// text is set with textContent: answers and documents come from the
// outside world.
"use strict";

const DRILL_FILTERS = ["model", "family", "axis", "kind", "verdict", "document", "pattern", "hops", "quartile", "dr_min", "dr_max", "window"];

// drillHref is the fragment of a view with the given parameters (empty
// ones left out).
function drillHref(view, params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") p.set(k, v);
  const qs = p.toString();
  return "#/" + view + (qs ? "?" + qs : "");
}

(function () {
  const box = document.createElement("div");
  box.id = "drill";
  box.hidden = true;
  document.querySelector("main").after(box);
  const style = document.createElement("style");
  style.textContent = `
  main[hidden], #drill[hidden] { display: none; }
  #scores a, #coverage a { color: inherit; text-decoration: underline dotted #8a939e; }
  #scores a:hover, #coverage a:hover { color: #0b5cad; }
  #kinds-chart a { cursor: pointer; }
  #drill { padding: 12px 18px 30px; max-width: 1600px; display: grid; gap: 12px; }
  #drill a { color: #0b5cad; }
  #drill .crumbs { font-size: 13px; display: flex; gap: 6px; flex-wrap: wrap; align-items: baseline; }
  #drill .crumbs span.sep { color: var(--muted); }
  #drill h2.big { font-size: 17px; margin: 0 0 6px; }
  #drill .facts { display: flex; gap: 16px; flex-wrap: wrap; color: var(--muted); font-size: 12px; margin: 4px 0; }
  #drill .facts b { color: var(--fg); font-weight: 600; }
  #drill .text { white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f8fa; border: 1px solid var(--line); border-radius: 4px;
    padding: 6px 8px; font-size: 12px; max-height: 220px; overflow: auto; margin: 4px 0; }
  #drill td.txt { white-space: normal; text-align: left; overflow-wrap: anywhere; max-width: 520px; }
  #drill details summary { cursor: pointer; color: var(--muted); font-size: 12px; }
  #drill .verdict { font-size: 11px; font-weight: 600; border-radius: 3px; padding: 1px 6px; }
  #drill .verdict.correct { background: #e3f3ea; color: #22704a; }
  #drill .verdict.wrong { background: #fde8e4; color: #a3321f; }
  #drill .verdict.refused { background: #fff1d6; color: #8a5a00; }
  #drill .verdict.error { background: #e9ebee; color: #4d4d4d; }
  #drill form.filters { margin-bottom: 8px; display: flex; gap: 8px; flex-wrap: wrap; align-items: end; font-size: 12px; }
  #drill form.filters label { display: flex; flex-direction: column; color: var(--muted); gap: 2px; }
  #drill form.filters input, #drill form.filters select { font: inherit; padding: 2px 4px; min-width: 90px; }
  #drill .variant h3 { font-size: 13px; margin: 0 0 4px; }
  #drill .pager { display: flex; gap: 12px; align-items: center; margin-top: 8px; font-size: 12px; }
  #drill tr.q:hover td { background: #f4f8fd; }
  #drill tr.on td { background: #fff8e0; }
  #drill table.answers { table-layout: fixed; }
  #drill table.answers th:nth-child(1) { width: 16%; } #drill table.answers th:nth-child(2) { width: 26%; }
  #drill table.answers th:nth-child(3) { width: 9%; } #drill table.answers th:nth-child(4) { width: 22%; }
  #drill table.answers td { white-space: normal; overflow-wrap: anywhere; }
  `;
  document.head.append(style);

  const main = document.querySelector("main");
  const esc = encodeURIComponent;
  function node(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function link(text, href, cls) { const a = node("a", text, cls); a.href = href; return a; }
  function card(title, note) {
    const s = node("section");
    if (title) s.append(node("h2", title));
    if (note) s.append(node("p", note, "note"));
    return s;
  }
  function num(v, d) { return v === undefined || v === null || isNaN(v) ? "—" : Number(v).toFixed(d === undefined ? 3 : d); }
  // numCI is a score with its 95% confidence interval, when the API gives
  // one ([lo, hi]; none below two units).
  function numCI(v, c) {
    const known = Array.isArray(c) && c.length === 2 && c.every(x => x !== null && x !== undefined && !isNaN(x));
    return known && v !== null && v !== undefined ? num(v) + " (" + num(c[0]) + "–" + num(c[1]) + ")" : num(v);
  }
  function verdict(v) { const s = node("span", v, "verdict " + v); s.dataset.verdict = v; return s; }
  function table(heads) {
    const t = node("table");
    const tr = node("tr");
    for (const hd of heads) { const th = node("th", hd); if (hd !== "" && hd[0] === "·") { th.textContent = hd.slice(1); th.className = "l"; } tr.append(th); }
    const head = node("thead"); head.append(tr);
    t.append(head, node("tbody"));
    return t;
  }
  function row(t, cells) {
    const tr = node("tr");
    for (const c of cells) { const td = c instanceof Node && c.tagName === "TD" ? c : node("td"); if (td !== c) td.append(c instanceof Node ? c : node("span", c)); tr.append(td); }
    t.tBodies[0].append(tr);
    return tr;
  }
  function td(child, cls) { const d = node("td", null, cls); if (child !== undefined) d.append(child instanceof Node ? child : node("span", child)); return d; }
  function crumbs(parts) {
    const c = node("div", null, "crumbs");
    c.append(link("Dashboard", "#"));
    for (const [text, href] of parts) {
      c.append(node("span", "›", "sep"));
      c.append(href ? link(text, href) : node("b", text));
    }
    return c;
  }
  async function get(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(url + ": " + (await r.text()).trim());
    return r.json();
  }

  // The model view: its RARE score per axis and kind (pooled over the
  // window, set against its original), and SURE's and PRGB's per kind,
  // each row leading to the questions behind it.
  async function modelView(p) {
    const model = p.get("model"), w = p.get("window") || "all";
    const [kinds, sure, prgb, grade, scores] = await Promise.all([get("/api/kinds?window=" + esc(w)), get("/api/sure?window=" + esc(w)),
      get("/api/prgb?window=" + esc(w)), get("/api/grade?window=" + esc(w)), get("/api/scores")]);
    const out = [crumbs([[model, null]])];
    const m = scores.models.find(x => x.model === model);
    const head = card(model + (m && m.baseline ? " (baseline)" : ""), "Window: " + (w === "all" ? "all time" : "last " + w) +
      ". Click a kind to see the questions behind its score.");
    if (m) {
      const f = node("div", null, "facts");
      for (const [k, label] of [["overall", "overall"], ["query", "query"], ["document", "document"], ["retrieval", "retrieval"]]) {
        const b = node("b", num(m[k]));
        const s = node("span", label + " "); s.append(b);
        const c = m[k + "_ci"];
        if (Array.isArray(c) && c[0] !== null && c[1] !== null) s.append(" (95% CI " + num(c[0]) + "–" + num(c[1]) + ")");
        f.append(s);
      }
      f.append(node("span", m.n + " outcomes"));
      head.append(f);
    }
    out.push(head);
    const rare = card("RARE per kind", "Mean judge f over the kind's outcomes (pooled), and its change from the model's score on the original question.");
    const t = table(["·axis", "·kind", "outcomes", "score", "change", ""]);
    t.id = "model-kinds";
    const rows = kinds.rows.filter(r => r.model === model);
    const orig = rows.find(r => r.axis === "original");
    const order = ["original", "query", "document", "cross", "retrieval"];
    rows.sort((a, b) => (order.indexOf(a.axis) - order.indexOf(b.axis)) || a.kind.localeCompare(b.kind));
    for (const r of rows) {
      const href = drillHref("questions", { model, family: "rare", axis: r.axis, kind: r.kind, window: w === "all" ? "" : w });
      const d = orig && r.axis !== "original" ? r.score - orig.score : null;
      const tr = row(t, [td(r.axis, "l"), td(link(r.kind, href), "l"), r.cnt, td(link(num(r.score), href), "score"),
        d === null ? "" : (d >= 0 ? "+" : "") + num(d), td(link("questions →", href))]);
      tr.dataset.kind = r.kind;
      tr.dataset.axis = r.axis;
      if (p.get("axis") === r.axis) tr.className = "on";
    }
    if (!rows.length) row(t, [td("no RARE outcomes for this model in the window", "empty")]);
    rare.append(t);
    out.push(rare);
    const srows = sure.rows.filter(r => r.model === model);
    if (srows.length) {
      const s = card("SURE per kind", "RR = answers unchanged, WR = wrong → right, LR = right → wrong when the spurious feature is added; in brackets each share's 95% confidence interval over instances.");
      const st = table(["·axis", "·kind", "instances", "RR", "WR", "LR", ""]);
      for (const r of srows) {
        const href = drillHref("questions", { model, family: "sure", axis: r.axis, kind: r.kind, window: w === "all" ? "" : w });
        row(st, [td(r.axis, "l"), td(link(r.kind, href), "l"), r.cnt, numCI(r.rr, r.rr_ci), numCI(r.wr, r.wr_ci), numCI(r.lr, r.lr_ci), td(link("questions →", href))]);
      }
      s.append(st);
      out.push(s);
    }
    const grows = grade.rows.filter(r => r.model === model);
    if (grows.length) {
      const s = card("GRADE per hops and D_r quartile", "Error rate of the answers over retrieved contexts, in brackets its 95% confidence interval; Q1 = the closest retrieval distance.");
      const gt = table(["·similarity", "hops", "D_r quartile", "D_r range", "answers", "error rate", ""]);
      for (const r of grows) {
        const href = drillHref("questions", { model, family: "grade", hops: r.hops, quartile: r.quartile, window: w === "all" ? "" : w });
        row(gt, [td(r.sim_func || "—", "l"), r.hops, "Q" + r.quartile, num(r.dr_min, 2) + "–" + num(r.dr_max, 2), r.cnt, numCI(r.error_rate, r.error_rate_ci), td(link("questions →", href))]);
      }
      s.append(gt);
      out.push(s);
    }
    const prow = prgb.rows.find(r => r.model === model);
    if (prow) {
      const s = card("PRGB", "Mean score over the placeholder variants.");
      const href = drillHref("questions", { model, family: "prgb", window: w === "all" ? "" : w });
      const pt = table(["·family", "data points", "score", ""]);
      row(pt, [td("prgb", "l"), prow.cnt, numCI(prow.score, prow.score_ci), td(link("questions →", href))]);
      s.append(pt);
      out.push(s);
    }
    box.replaceChildren(...out);
  }

  // The question list with its filters.
  async function questionsView(p) {
    const filt = {};
    for (const k of DRILL_FILTERS) if (p.get(k)) filt[k] = p.get(k);
    const offset = Number(p.get("offset") || 0);
    const qs = new URLSearchParams(filt);
    qs.set("offset", offset);
    qs.set("limit", 25);
    const [page, scores] = await Promise.all([get("/api/questions?" + qs), get("/api/scores")]);
    const trail = [];
    if (filt.model) trail.push([filt.model, drillHref("model", { model: filt.model, window: filt.window || "all" })]);
    const what = [filt.axis, filt.kind].filter(Boolean).join(" / ") || (page.family + " questions");
    trail.push([what, null]);
    const out = [crumbs(trail)];
    const c = card("Questions behind " + [filt.model, page.family.toUpperCase(), filt.axis && filt.kind ? filt.axis + " / " + filt.kind : filt.kind || filt.axis]
      .filter(Boolean).join(" · "),
      `${page.total} question(s), worst score first. Score = mean ${page.family === "rare" ? "judge f" : page.family + " outcome"} of the model's outcomes in this cell; ` +
      "verdicts count its answers there. Click a question to see its variants and answers.");
    // Filters: a form that rewrites the fragment.
    const form = node("form", null, "filters");
    const models = scores.models.map(m => m.model);
    const field = (name, input) => { const l = node("label", name); l.append(input); form.append(l); return input; };
    const select = (name, options) => {
      const s = node("select"); s.name = name;
      for (const o of ["", ...options]) { const op = node("option", o === "" ? "any" : o); op.value = o; s.append(op); }
      s.value = filt[name] || "";
      return field(name, s);
    };
    const input = (name, ph) => { const i = node("input"); i.name = name; i.placeholder = ph || "any"; i.value = filt[name] || ""; return field(name, i); };
    select("model", models);
    select("family", ["rare", "sure", "grade", "prgb"]);
    input("axis");
    input("kind");
    select("verdict", ["correct", "wrong", "refused", "error"]);
    input("document", "doc id");
    input("pattern", "e.g. single");
    select("window", ["1h", "24h", "7d"]).options[0].textContent = "all time";
    // A GRADE cell's hops and D_r quartile, when the link came from one.
    for (const k of ["hops", "quartile", "dr_min", "dr_max"]) if (filt[k]) input(k);
    const go = node("button", "apply"); go.type = "submit";
    form.append(go);
    form.addEventListener("submit", e => {
      e.preventDefault();
      const np = {};
      for (const el of form.elements) if (el.name && el.value) np[el.name] = el.value;
      location.hash = drillHref("questions", np);
    });
    c.append(form);
    const t = table(["·question", "·answer", "·pattern", "hops", "D_r", "·documents", "·score per model", "·verdicts"]);
    t.id = "questions";
    for (const it of page.items) {
      // The question's page links back to this list, filters and all.
      const href = drillHref("question", { id: it.question_id, model: filt.model, back: new URLSearchParams(Object.assign({}, filt, offset ? { offset } : {})).toString() });
      const qcell = td(link(it.question || it.question_id, href), "txt");
      if (it.retired) qcell.append(node("span", "retired", "tag"));
      const docs = node("div");
      for (const d of it.documents) {
        const a = link(d.title || d.doc_id, drillHref("questions", Object.assign({}, filt, { document: d.doc_id })));
        a.title = d.uri || d.doc_id;
        docs.append(a, node("br"));
      }
      const sc = node("div"), vd = node("div");
      for (const s of it.scores) {
        sc.append(node("div", `${s.model}: ${num(s.score)} (n ${s.n})`));
        const line = node("div");
        line.append(node("span", s.model + ": "));
        for (const v of ["correct", "wrong", "refused", "error"]) {
          if (!s.verdicts[v]) continue;
          const b = verdict(v);
          b.textContent = v + " " + s.verdicts[v];
          line.append(b, " ");
        }
        vd.append(line);
      }
      const tr = row(t, [qcell, td(it.answer, "txt"), td(it.pattern, "l"), it.hops, num(it.d_r, 2), td(docs, "txt"), td(sc, "l"), td(vd, "l")]);
      tr.className = "q";
      tr.dataset.question = it.question_id;
    }
    if (!page.items.length) row(t, [td("no question matches these filters", "empty")]);
    c.append(t);
    const pager = node("div", null, "pager");
    if (offset > 0) pager.append(link("← previous", drillHref("questions", Object.assign({}, filt, { offset: Math.max(0, offset - 25) }))));
    pager.append(node("span", page.total ? `${offset + 1}–${offset + page.items.length} of ${page.total}` : "0 of 0"));
    if (page.next_offset !== null && page.next_offset !== undefined) pager.append(link("next →", drillHref("questions", Object.assign({}, filt, { offset: page.next_offset }))));
    c.append(pager);
    out.push(c);
    box.replaceChildren(...out);
  }

  // One question: what it asks and rests on, then each variant with every
  // model's answer and verdict.
  async function questionView(p) {
    const id = p.get("id"), model = p.get("model") || "";
    const back = p.get("back");
    const list = back !== null ? "#/questions" + (back ? "?" + back : "") : drillHref("questions", { model });
    const bp = new URLSearchParams(back || "");
    const d = await get("/api/questions/" + esc(id) + (model ? "?model=" + esc(model) : ""));
    const q = d.question;
    const trail = [];
    if (model) trail.push([model, drillHref("model", { model, window: "all" })]);
    trail.push([[bp.get("axis"), bp.get("kind")].filter(Boolean).join(" / ") || "questions", list]);
    trail.push([q.question.length > 60 ? q.question.slice(0, 57) + "…" : q.question, null]);
    const out = [crumbs(trail)];
    const head = card();
    head.id = "question";
    head.append(node("h2", q.question, "big"));
    const facts = node("div", null, "facts");
    const fact = (k, v) => { const s = node("span", k + " "); s.append(node("b", v)); facts.append(s); };
    fact("answer", q.answer);
    if (q.aliases.length) fact("also accepted", q.aliases.join(" · "));
    fact("pattern", q.pattern);
    fact("hops", q.hops);
    fact("D_r", num(q.d_r, 2));
    if (q.generator) fact("generator", q.generator);
    fact("id", q.question_id);
    head.append(facts);
    if (q.retired) head.append(node("p", "Retired: " + (q.retired_reason || "no reason recorded"), "note"));
    if (model) { const all = link("show every model", drillHref("question", { id })); head.append(all); }
    out.push(head);
    const docs = card("Documents and ground-truth chunks", "The chunks the question was written from: a context holding one of them holds the answer.");
    docs.id = "documents";
    for (const doc of d.documents) {
      const line = node("div", null, "facts");
      line.append(node("b", doc.title || doc.doc_id), node("span", doc.uri), node("span", "version " + doc.version));
      line.append(link("questions on this document", drillHref("questions", { document: doc.doc_id, model })));
      docs.append(line);
    }
    for (const ch of d.chunks) {
      docs.append(node("div", `chunk ${ch.ordinal} of ${(d.documents.find(x => x.doc_id === ch.doc_id) || {}).title || ch.doc_id}`, "note"));
      docs.append(node("div", ch.text, "text"));
    }
    out.push(docs);
    const cb = card("Closed book", "Each model asked without any context: a correct answer means it knows the answer, which changes what RARE's judge f expects of it.");
    cb.id = "closed-book";
    const ct = table(["·model", "·answer", "·verdict"]);
    for (const a of d.closed_book) row(ct, [td(a.model, "l"), td(a.error ? "error: " + a.error : a.answer, "txt"), td(verdict(a.verdict), "l")]);
    if (!d.closed_book.length) row(ct, [td("no closed-book answer stored", "empty")]);
    cb.append(ct);
    out.push(cb);
    const original = d.variants.find(v => v.axis === "original");
    // Every variant at a glance: one row each, a verdict per model.
    const ms = [...new Set(d.variants.flatMap(v => v.answers.map(a => a.model)))].sort();
    const ov = card("Variants at a glance", "Each model's verdict on each variant, and RARE's judge f where it scores the variant. Click a variant for its query, contexts and answers.");
    ov.id = "overview";
    const ot = table(["·variant", "·answer in contexts", ...ms.map(m => "·" + m)]);
    for (const v of d.variants) {
      // The fragment holds the view: jump to the card without changing it.
      const jump = link(v.axis + " / " + v.kind, location.hash);
      jump.addEventListener("click", e => { e.preventDefault(); document.getElementById("v-" + v.variant_id).scrollIntoView(); });
      const cells = [td(jump, "l"), td(v.answer_available ? "yes" : "removed", "l")];
      for (const m of ms) {
        const a = v.answers.find(x => x.model === m);
        const c = td(undefined, "l");
        if (a) {
          c.append(verdict(a.verdict));
          const f = a.outcomes.find(o => o.family === "rare" && o.metric === "f");
          if (f) c.append(node("span", " f " + f.value));
        } else c.append(node("span", "—"));
        cells.push(c);
      }
      const tr = row(ot, cells);
      // The kind the user came from stands out.
      if (back !== null && bp.get("kind") && (v.kind === bp.get("kind") || v.kind === bp.get("kind") + "_noise")) tr.className = "on";
    }
    ov.append(ot);
    out.push(ov);
    for (const v of d.variants) {
      const s = card();
      s.className = "variant";
      s.id = "v-" + v.variant_id;
      s.dataset.variant = v.variant_id;
      s.dataset.kind = v.kind;
      s.append(node("h3", v.axis + " / " + v.kind));
      const f = node("div", null, "facts");
      f.append(node("span", v.answer_available ? "the contexts hold the answer" : "the answer was removed from the contexts"));
      f.append(node("span", v.contexts.length + " context(s)"));
      if (v.expected_answer && v.expected_answer !== q.answer) {
        const e = node("span", "expected answer "); e.append(node("b", v.expected_answer)); f.append(e);
      }
      s.append(f);
      const qline = node("div", null, "facts");
      qline.append(node("span", "query"), node("b", v.query));
      if (original && v !== original && v.query !== original.query) qline.append(node("span", "(changed from the original)"));
      s.append(qline);
      const ctx = node("details");
      ctx.append(node("summary", "contexts"));
      v.contexts.forEach((c, i) => { ctx.append(node("div", `context ${i + 1}`, "note"), node("div", c, "text")); });
      s.append(ctx);
      const t = table(["·model", "·answer", "·verdict", "·outcomes", "·retrieved passages"]);
      t.className = "answers";
      for (const a of v.answers) {
        const oc = node("div");
        for (const o of a.outcomes) oc.append(node("div", `${o.family} ${o.metric} = ${o.value}${o.family === "rare" ? (o.known ? " (knew it closed-book)" : " (did not know it closed-book)") : ""}`));
        if (!a.outcomes.length) oc.append(node("span", "—"));
        const ret = node("div");
        if (a.retrieved.length) {
          const det = node("details");
          det.append(node("summary", `${a.retrieved.length} passage(s)${a.retriever ? " · " + a.retriever : ""}${a.retrieval_hit ? " · ground truth hit" : ""}`));
          a.retrieved.forEach((r, i) => det.append(node("div", (a.retrieved_sources[i] ? a.retrieved_sources[i] + ": " : "") + r, "text")));
          ret.append(det);
        } else ret.append(node("span", "—"));
        const tr = row(t, [td(a.model, "l"), td(a.error ? "error: " + a.error : a.answer, "txt"), td(verdict(a.verdict), "l"), td(oc, "l"), td(ret, "txt")]);
        tr.dataset.model = a.model;
      }
      if (!v.answers.length) row(t, [td("no answer stored for this variant", "empty")]);
      s.append(t);
      out.push(s);
    }
    box.replaceChildren(...out);
  }

  async function route() {
    const hash = location.hash;
    // The header's window picker drives the dashboard's charts; the
    // drill-down views carry their window in their own filters.
    const picker = document.getElementById("picker");
    if (!hash.startsWith("#/")) {
      box.hidden = true;
      main.hidden = false;
      if (picker) picker.hidden = false;
      return;
    }
    if (picker) picker.hidden = true;
    const [view, query] = hash.slice(2).split("?");
    const p = new URLSearchParams(query || "");
    main.hidden = true;
    box.hidden = false;
    box.dataset.loaded = "";
    box.dataset.view = view;
    try {
      if (view === "model") await modelView(p);
      else if (view === "questions") await questionsView(p);
      else if (view === "question") await questionView(p);
      else throw new Error("no view " + view);
      box.dataset.loaded = "true";
    } catch (e) {
      box.replaceChildren(crumbs([["cannot load", null]]), node("p", e.message, "empty"));
      box.dataset.loaded = "error";
    }
    window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", route);
  route();
})();
