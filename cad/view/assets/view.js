/* cad view: inlined into the page. Renders each document when it scrolls near (IntersectionObserver),
   marks every pronoun, its antecedent and their translations, and shows a pronoun's decision on hover
   (click pins it; Esc unpins; j/k: next/previous pronoun that passes the filter). */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("cad-data").textContent);
  var CASES = {1: "identical", 2: "equivalent", 3: "different", 4: "candidate not found",
               5: "reference not found", 6: "both not found"};
  var CHAINS = ["#1e88e5", "#d81b60", "#43a047", "#f4511e", "#8e24aa", "#00897b", "#fdd835", "#6d4c41",
                "#3949ab", "#c0ca33"];
  var state = {sys: 0, filter: "all", cases: {1: true, 2: true, 3: true, 4: true, 5: true, 6: true},
               onlyMatching: true, sideBySide: false, pinned: null, hover: null};
  var rendered = {};          // doc index -> true once its body is rendered
  var observer = null;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
  }
  function pairs(line) {
    var out = [];
    if (!line) return out;
    line.split(" ").forEach(function (p) { var k = p.indexOf("-"); out.push([+p.slice(0, k), +p.slice(k + 1)]); });
    return out;
  }
  function key(d, p) { return d.index + ":" + p.s + ":" + p.i; }
  function chainColour(e) { return e.chain === null || e.chain === undefined ? null : CHAINS[e.chain % CHAINS.length]; }
  function fmt(x) { return x === null || x === undefined ? "–" : (+x).toFixed(3); }

  // -- the filter ------------------------------------------------------------------------------
  function filtering() {
    if (state.filter !== "all") return true;
    for (var c = 1; c <= 6; c++) if (!state.cases[c]) return true;
    return false;
  }
  function passes(p) {
    var e = p.sys[state.sys];
    if (e.case !== null && !state.cases[e.case]) return false;
    if (e.case === null && filtering() && !allCases()) return false;
    switch (state.filter) {
      case "errors": return e.case !== null && e.case > 2;
      case "fem": return p.fem;
      case "femRef": return p.femRef;
      case "differ":
        return p.sys.some(function (o) { return o.target.toLowerCase() !== e.target.toLowerCase(); });
      case "noAnte": return !e.ante;
      default: return true;
    }
  }
  function allCases() { for (var c = 1; c <= 6; c++) if (!state.cases[c]) return false; return true; }

  // -- rendering -------------------------------------------------------------------------------
  function shownSystems() {
    if (!state.sideBySide) return [state.sys];
    return DATA.systems.map(function (_, x) { return x; });
  }
  function tokensHtml(tokens, marks) {
    var out = [];
    for (var j = 0; j < tokens.length; j++) {
      var m = marks[j];
      if (!m) { out.push(esc(tokens[j])); continue; }       // a word nothing points at stays text: fewer boxes to lay out
      var attrs = ' data-t="' + j + '"';
      Object.keys(m.attrs).forEach(function (a) { attrs += " " + a + '="' + esc(m.attrs[a].join(" ")) + '"'; });
      var style = m.chain ? ' style="--chain:' + m.chain + '"' : "";
      out.push('<span class="w ' + m.cls.join(" ") + '"' + attrs + style + ">" + esc(tokens[j]) + "</span>");
    }
    return out.join(" ");
  }
  function mark(marks, j, cls, attr, value, chain) {
    var m = marks[j] || (marks[j] = {cls: [], attrs: {}, chain: null});
    if (cls && m.cls.indexOf(cls) < 0) m.cls.push(cls);
    if (attr) (m.attrs[attr] = m.attrs[attr] || []).push(value);
    if (chain) m.chain = chain;
    return m;
  }
  function sentenceMarks(d) {
    // per sentence: source marks, reference marks, per shown system the target marks
    var n = d.src.length, src = [], ref = [], tgt = {};
    for (var s = 0; s < n; s++) { src.push({}); ref.push({}); }
    shownSystems().forEach(function (x) { tgt[x] = []; for (var s = 0; s < n; s++) tgt[x].push({}); });
    var on = {};
    d.prons.forEach(function (p) {
      var k = key(d, p), e = p.sys[state.sys], ok = passes(p), colour = chainColour(e);
      on[k] = ok;
      var m = mark(src[p.s], p.i, "pr", "data-pron", k, colour);
      m.cls.push(ok ? "c" + (e.case || 0) : "dim");
      m.attrs["data-case"] = [String(e.case || "")];
      if (e.ante && e.ante.start !== null) {
        for (var t = e.ante.start; t < e.ante.end; t++) mark(src[e.ante.s], t, "an", "data-ante-of", k, colour);
      }
      e.cands.forEach(function (c) {      // a box for each candidate's words, outlined on selection
        if (c.start !== null) for (var t = c.start; t < c.end; t++) mark(src[c.s], t, null, null, null, null);
      });
      if (p.ref) p.ref.pos.forEach(function (j) { mark(ref[p.s], j, "rt", "data-pron-ref", k, null); });
      shownSystems().forEach(function (x) {
        var ex = p.sys[x];
        if (ex.ante && ex.ante.trpos) ex.ante.trpos.forEach(function (j) { mark(tgt[x][ex.ante.s], j, null, null, null, null); });
        ex.tpos.forEach(function (j) {
          var tm = mark(tgt[x][p.s], j, "pt", "data-pron-tgt", k, chainColour(ex));
          tm.cls.push(ok ? "c" + (ex.case || 0) : "dim");
          if (ex.repaired) tm.cls.push("repaired");
        });
      });
    });
    return {src: src, ref: ref, tgt: tgt, on: on};
  }
  function renderDoc(d) {
    var sec = document.getElementById("doc-" + d.index), body = sec.querySelector(".body");
    var marks = sentenceMarks(d), cols = shownSystems(), filt = filtering() && state.onlyMatching;
    var keep = {};
    if (filt) d.prons.forEach(function (p) {
      if (marks.on[key(d, p)]) { keep[p.s] = true; var a = p.sys[state.sys].ante; if (a && a.s !== null) keep[a.s] = true; }
    });
    var ncols = cols.length + (DATA.hasRef ? 2 : 1);
    var html = ['<div class="row head" style="--cols:' + ncols + '"><div class="n">#</div><div>source</div>'];
    cols.forEach(function (x) { html.push("<div>" + esc(DATA.systems[x].name) + "</div>"); });
    html.push('<div class="col-ref">reference</div></div>');
    for (var s = 0; s < d.src.length; s++) {
      var hidden = filt && !keep[s] ? " hidden" : "";
      html.push('<div class="row' + hidden + '" data-s="' + s + '" style="--cols:' + ncols + '">');
      html.push('<div class="n" title="line ' + (d.first + s + 1) + '">' + s + '</div><div class="col-src">' + tokensHtml(d.src[s].split(" "), marks.src[s]) + "</div>");
      cols.forEach(function (x) {
        html.push('<div class="col-tgt" data-sys="' + x + '">' + tokensHtml(d.tgt[x][s] ? d.tgt[x][s].split(" ") : [], marks.tgt[x][s]) + "</div>");
      });
      html.push('<div class="col-ref">' + (d.ref ? tokensHtml(d.ref[s] ? d.ref[s].split(" ") : [], marks.ref[s]) : "") + "</div></div>");
    }
    html.push('<svg class="arrows" aria-hidden="true"><defs><marker id="head-' + d.index + '" viewBox="0 0 10 10" refX="9" refY="5" ' +
              'markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1565c0"/></marker></defs></svg>');
    body.innerHTML = html.join("");
    body.style.minHeight = "";
    rendered[d.index] = true;
    sec.setAttribute("data-rendered", "1");
  }
  function docStats(d) {
    var counts = {}, n = 0, shown = 0;
    d.prons.forEach(function (p) {
      var c = p.sys[state.sys].case; n++;
      if (c) counts[c] = (counts[c] || 0) + 1;
      if (passes(p)) shown++;
    });
    var parts = [d.src.length + (d.src.length === 1 ? " sentence" : " sentences"), n + (n === 1 ? " pronoun" : " pronouns")];
    Object.keys(counts).forEach(function (c) { parts.push("C" + c + " " + counts[c]); });
    if (filtering()) parts.push(shown + " shown");
    return {text: parts.join(" · "), shown: shown};
  }
  function refreshDoc(d) {
    var sec = document.getElementById("doc-" + d.index), st = docStats(d);
    sec.querySelector(".stats").textContent = st.text;
    sec.classList.toggle("nomatch", filtering() && st.shown === 0);
    if (rendered[d.index]) renderDoc(d);
  }
  function refreshAll() {
    clearSelection();
    state.pinned = null; hideCard();
    DATA.docs.forEach(refreshDoc);
    var total = 0, shown = 0;
    DATA.docs.forEach(function (d) { d.prons.forEach(function (p) { total++; if (passes(p)) shown++; }); });
    document.getElementById("count").textContent = shown + " of " + total + " pronouns shown";
  }
  function buildSections() {
    var main = document.getElementById("docs"), html = [];
    DATA.docs.forEach(function (d) {
      html.push('<section class="doc" id="doc-' + d.index + '" data-doc="' + d.index + '"><h2>Document ' + d.index +
                (d.id !== String(d.index) ? " · id " + esc(d.id) : "") + " · lines " + (d.first + 1) + "–" + (d.first + d.src.length) +
                '<span class="stats"></span></h2><div class="body" style="min-height:' + (26 * d.src.length + 30) + 'px"></div></section>');
    });
    main.innerHTML = html.join("");
    main.addEventListener("click", function (ev) {
      var h = ev.target.closest("section.doc > h2");
      if (h) h.parentNode.classList.toggle("folded");
    });
    if ("IntersectionObserver" in window) {
      observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (en) {
          if (!en.isIntersecting) return;
          var i = +en.target.getAttribute("data-doc");
          if (!rendered[i]) renderDoc(DATA.docs[i]);
        });
      }, {rootMargin: "1500px 0px"});
      main.querySelectorAll("section.doc").forEach(function (s) { observer.observe(s); });
    } else {
      DATA.docs.forEach(renderDoc);
    }
  }

  // -- selection: marks, arrow, card ----------------------------------------------------------
  function find(k) {
    var parts = k.split(":"), d = DATA.docs[+parts[0]], s = +parts[1], i = +parts[2];
    for (var n = 0; n < d.prons.length; n++) if (d.prons[n].s === s && d.prons[n].i === i) return {d: d, p: d.prons[n]};
    return null;
  }
  function clearSelection() {
    document.querySelectorAll(".sel, .sel-ante, .cand").forEach(function (el) {
      el.classList.remove("sel", "sel-ante", "cand");
    });
    document.querySelectorAll("svg.arrows path.arrow, svg.arrows path.cand-arrow").forEach(function (el) { el.remove(); });
  }
  function tokenAt(body, s, col, j, sys) {
    var sel = '.row[data-s="' + s + '"] .' + col + (sys !== undefined ? '[data-sys="' + sys + '"]' : "") + ' .w[data-t="' + j + '"]';
    return body.querySelector(sel);
  }
  function arrow(body, from, to, d, cls) {
    if (!from || !to) return;
    var svg = body.querySelector("svg.arrows"), b = body.getBoundingClientRect();
    var r1 = from.getBoundingClientRect(), r2 = to.getBoundingClientRect();
    if (!r2.width && !r2.height) return;       // in a sentence the filter hides
    var x1 = r1.left + r1.width / 2 - b.left, y1 = r1.top - b.top;
    var x2 = r2.left + r2.width / 2 - b.left, above = r2.bottom <= r1.top + 2;
    var y2 = (above ? r2.bottom : r2.top) - b.top, lift = above ? Math.max(18, (y1 - y2) / 3) : 26;
    var c1y = y1 - lift, c2y = above ? y2 + lift : y2 - lift;
    var path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", "M" + x1 + "," + y1 + " C" + x1 + "," + c1y + " " + x2 + "," + c2y + " " + x2 + "," + y2);
    path.setAttribute("class", cls);
    if (cls === "arrow") path.setAttribute("marker-end", "url(#head-" + d.index + ")");
    svg.appendChild(path);
  }
  function select(k) {
    clearSelection();
    var f = find(k);
    if (!f) return;
    var d = f.d, p = f.p, e = p.sys[state.sys], sec = document.getElementById("doc-" + d.index);
    if (!rendered[d.index]) renderDoc(d);
    var body = sec.querySelector(".body"), pron = tokenAt(body, p.s, "col-src", p.i);
    if (pron) pron.classList.add("sel");
    body.querySelectorAll('[data-pron-tgt~="' + k + '"], [data-pron-ref~="' + k + '"]').forEach(function (el) { el.classList.add("sel"); });
    shownSystems().forEach(function (x) {
      var ex = p.sys[x];
      if (ex.ante && ex.ante.trpos) ex.ante.trpos.forEach(function (j) {
        var t = tokenAt(body, ex.ante.s, "col-tgt", j, x); if (t) t.classList.add("sel-ante");
      });
    });
    e.cands.forEach(function (c) {
      if (c.start === null) return;
      for (var t = c.start; t < c.end; t++) { var el = tokenAt(body, c.s, "col-src", t); if (el) el.classList.add("cand"); }
      if (!e.ante || c.s !== e.ante.s || c.start !== e.ante.start) arrow(body, pron, tokenAt(body, c.s, "col-src", c.start), d, "cand-arrow");
    });
    if (e.ante && e.ante.start !== null) {
      var first = null;
      for (var t = e.ante.start; t < e.ante.end; t++) {
        var el = tokenAt(body, e.ante.s, "col-src", t);
        if (el) { el.classList.add("sel-ante"); first = first || el; }
      }
      arrow(body, pron, first, d, "arrow");
    }
    return {d: d, p: p, el: pron};
  }
  var DOCK = window.matchMedia ? window.matchMedia("(min-width: 1100px)") : {matches: false};
  var IDLE = '<p class="hint">Hover over a marked pronoun (or click it to pin it) to see its antecedent, candidates, ' +
             "bundle mixture, the CM's classes, what it became and the reference's word. j/k: next/previous pronoun.</p>";
  function hideCard() {
    var c = document.getElementById("card");
    c.classList.remove("pinned");
    if (DOCK.matches) { c.hidden = false; c.innerHTML = IDLE; c.style.left = ""; c.style.top = ""; } else c.hidden = true;
  }
  function bars(rows, chosen) {
    var html = ["<table>"];
    rows.forEach(function (r) {
      html.push('<tr class="' + (chosen !== undefined && r[0] === chosen ? "chosen" : "") + '"><td>' + esc(r[0]) + '</td><td class="p">' +
                fmt(r[1]) + '</td><td class="bar"><span style="width:' + Math.round(100 * Math.min(1, r[1])) + '%"></span></td>' +
                (r.length > 2 ? '<td class="p" title="expected APT credit">' + fmt(r[2]) + "</td>" : "") + "</tr>");
    });
    return html.join("") + "</table>";
  }
  function genderOf(e) {
    var parts = (e.features || "").split("-"), g = [];
    ["masc", "fem", "sing", "plur", "hum", "nonhum", "nonref", "event"].forEach(function (w) { if (parts.indexOf(w) >= 0) g.push(w); });
    if (!g.length && e.coref) ["gender", "number"].forEach(function (w) { if (e.coref[w]) g.push(e.coref[w]); });
    return g.join(" ");
  }
  function caseTag(c) { return c ? '<span class="case-tag c' + c + '">C' + c + " " + CASES[c] + "</span>" : ""; }
  function cardHtml(d, p) {
    var e = p.sys[state.sys], h = [];
    h.push("<h3>" + esc(p.tok) + " <small>document " + d.index + " · sentence " + p.s + " · token " + p.i +
           " (line " + (d.first + p.s + 1) + ") · " +
           esc(DATA.systems[state.sys].name) + "</small> " + caseTag(e.case) + "</h3><dl>");
    if (e.ante) {
      var where = e.ante.s !== null ? " (sentence " + e.ante.s + (e.ante.start === null ? ", words not found" : "") + ")" : "";
      h.push("<dt>antecedent</dt><dd><b>" + esc(e.ante.text) + "</b>" + where + "</dd>");
      h.push("<dt>its translation</dt><dd>" + (e.ante.tr ? "<b>" + esc(e.ante.tr) + "</b>" : "–") +
             (e.ante.trFrom === "alignment" ? ' <span class="hint">(through the alignment)</span>' : "") + "</dd>");
    } else {
      h.push("<dt>antecedent</dt><dd>none" + (e.from === "apt" ? ' <span class="hint">(no trace or coreference record)</span>' : "") + "</dd>");
    }
    var g = genderOf(e);
    if (g || e.genderSource) h.push("<dt>gender</dt><dd>" + esc(g || "–") + (e.genderSource ? " · from " + esc(e.genderSource) : "") + "</dd>");
    if (e.features) h.push("<dt>bundle read</dt><dd>" + esc(e.features) + "</dd>");
    if (e.pass) h.push("<dt>pass</dt><dd>" + esc(e.pass) + "</dd>");
    h.push("<dt>output</dt><dd><b>" + esc(e.target || "(nothing aligned)") + "</b>" + (e.tclass ? " · class " + esc(e.tclass) : "") +
           (e.repaired ? ' <span class="hint">(APT\'s alignment repair)</span>' : "") +
           (e.traceTarget !== null && e.traceTarget.toLowerCase() !== e.target.toLowerCase() ? ' · trace: "' + esc(e.traceTarget) + '"' : "") + "</dd>");
    if (p.ref) h.push("<dt>reference</dt><dd><b>" + esc(p.ref.words || "(nothing aligned)") + "</b>" +
                      (p.ref.improved ? ' <span class="hint">(APT\'s alignment repair)</span>' : "") + "</dd>");
    h.push("<dt>from</dt><dd>" + {trace: "the trace", coref: "coreference records (no trace)", apt: "the source pronoun list (no record for this system)"}[e.from] + "</dd>");
    Object.keys(e.extra).forEach(function (k) { h.push("<dt>" + esc(k) + "</dt><dd>" + esc(JSON.stringify(e.extra[k])) + "</dd>"); });
    h.push("</dl>");
    if (DATA.systems.length > 1) {
      h.push("<h4>every system</h4><table>");
      p.sys.forEach(function (o, x) {
        h.push("<tr><td>" + esc(DATA.systems[x].name) + "</td><td><b>" + esc(o.target || "–") + "</b></td><td>" + caseTag(o.case) +
               "</td><td>" + esc(o.ante ? "→ " + o.ante.text : "") + '</td><td class="hint">' + esc(o.features || "") + "</td></tr>");
      });
      h.push("</table>");
    }
    if (e.cands.length) h.push("<h4>candidates</h4>" + bars(e.cands.map(function (c) {
      return [c.text + (c.s !== null ? " (s" + c.s + (c.start !== null ? ":" + c.start : "") + ")" : ""), c.p];
    })));
    if (e.bundles.length) h.push("<h4>bundle mixture</h4>" + bars(e.bundles, e.features));
    if (e.classes) {
      var credit = e.classes.length && e.classes[0].length > 2 ? ", expected APT credit" : "";
      h.push("<h4>CM's classes <span class=\"hint\">P(class)" + credit + " · " + esc(DATA.classes) + "</span></h4>" +
             bars(e.classes.slice(0, 8), e.tclass) + (e.classes.length > 8 ? '<p class="hint">' + (e.classes.length - 8) +
             " more below " + fmt(e.classes[8][1]) + "</p>" : ""));
    }
    h.push('<p class="hint">click: pin · Esc: unpin · j/k: next/previous pronoun</p>');
    return h.join("");
  }
  function showCard(k, pinned) {
    var got = select(k);
    if (!got) return;
    var card = document.getElementById("card");
    card.innerHTML = cardHtml(got.d, got.p);
    card.hidden = false;
    card.classList.toggle("pinned", !!pinned);
    if (DOCK.matches) { card.style.left = ""; card.style.top = ""; return; }
    var r = got.el ? got.el.getBoundingClientRect() : {left: 20, bottom: 80, top: 60};
    var left = Math.min(window.innerWidth - card.offsetWidth - 12, Math.max(8, r.left));
    var top = r.bottom + 8;
    if (top + card.offsetHeight > window.innerHeight - 8) top = Math.max(8, r.top - card.offsetHeight - 8);
    card.style.left = left + "px"; card.style.top = top + "px";
  }
  function stepPronoun(dir) {
    var all = [];
    DATA.docs.forEach(function (d) { d.prons.forEach(function (p) { if (passes(p)) all.push(key(d, p)); }); });
    if (!all.length) return;
    var at = all.indexOf(state.pinned), next = all[(at + dir + all.length) % all.length];
    if (at < 0) next = dir > 0 ? all[0] : all[all.length - 1];
    var d = DATA.docs[+next.split(":")[0]];
    if (!rendered[d.index]) renderDoc(d);
    document.getElementById("doc-" + d.index).classList.remove("folded");
    var el = document.querySelector('[data-pron="' + next + '"]');
    if (el) el.scrollIntoView({block: "center"});
    state.pinned = next;
    showCard(next, true);
  }

  // -- events and controls --------------------------------------------------------------------
  function wire() {
    var main = document.getElementById("docs");
    main.addEventListener("mouseover", function (ev) {
      var t = ev.target.closest("[data-pron]");
      if (!t || state.pinned) return;
      showCard(t.getAttribute("data-pron"), false);
    });
    main.addEventListener("mouseout", function (ev) {
      if (state.pinned || !ev.target.closest("[data-pron]")) return;
      if (ev.relatedTarget && ev.relatedTarget.closest && ev.relatedTarget.closest("[data-pron]")) return;
      clearSelection(); hideCard();
    });
    main.addEventListener("click", function (ev) {
      var t = ev.target.closest("[data-pron], [data-pron-tgt], [data-pron-ref]");
      if (!t) return;
      var k = t.getAttribute("data-pron") || (t.getAttribute("data-pron-tgt") || t.getAttribute("data-pron-ref")).split(" ")[0];
      state.pinned = state.pinned === k ? null : k;
      if (state.pinned) showCard(k, true); else { clearSelection(); hideCard(); }
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") return;
      if (ev.key === "Escape") { state.pinned = null; clearSelection(); hideCard(); }
      if (ev.key === "j") stepPronoun(1);
      if (ev.key === "k") stepPronoun(-1);
    });
    window.addEventListener("resize", function () {
      document.documentElement.style.setProperty("--bar", document.getElementById("toolbar").offsetHeight + "px");
      if (state.pinned) showCard(state.pinned, true); else hideCard();
    });
    document.getElementById("sys").addEventListener("change", function (ev) { state.sys = +ev.target.value; refreshAll(); });
    document.getElementById("filter").addEventListener("change", function (ev) { state.filter = ev.target.value; refreshAll(); });
    document.getElementById("only").addEventListener("change", function (ev) { state.onlyMatching = ev.target.checked; refreshAll(); });
    document.getElementById("side").addEventListener("change", function (ev) { state.sideBySide = ev.target.checked; refreshAll(); });
    document.getElementById("next").addEventListener("click", function () { stepPronoun(1); });
    document.getElementById("prev").addEventListener("click", function () { stepPronoun(-1); });
    document.body.addEventListener("click", function (ev) {
      var c = ev.target.closest("[data-case-chip], svg.chart rect.seg");
      if (!c) return;
      var n = +(c.getAttribute("data-case-chip") || c.getAttribute("data-case"));
      if (c.tagName.toLowerCase() === "rect") {      // a bar segment: only that category
        for (var i = 1; i <= 6; i++) state.cases[i] = i === n;
      } else state.cases[n] = !state.cases[n];
      document.querySelectorAll("[data-case-chip]").forEach(function (el) {
        el.classList.toggle("off", !state.cases[+el.getAttribute("data-case-chip")]);
      });
      refreshAll();
    });
  }

  if (!DATA.hasRef) document.body.classList.add("noref");
  buildSections();
  wire();
  document.documentElement.style.setProperty("--bar", document.getElementById("toolbar").offsetHeight + "px");
  refreshAll();
  window.cadView = {
    data: DATA, state: state, select: function (k) { return !!select(k); }, show: showCard,
    renderAll: function () { DATA.docs.forEach(function (d) { if (!rendered[d.index]) renderDoc(d); }); },
    rendered: function () { return Object.keys(rendered).map(Number); }
  };
  document.body.setAttribute("data-ready", "1");
})();
