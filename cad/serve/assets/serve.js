/* cad serve's page: sends the text to POST /translate (after a pause in typing, on the button or
   Ctrl+Enter), one request at a time (the server translates one document at a time anyway: a
   request for text that changed meanwhile follows when the answer comes), shows each sentence's
   French as it comes back and cad view's page of its pronouns in a sandboxed frame. */
(function () {
  "use strict";
  var CFG = JSON.parse(document.getElementById("serve-config").textContent);
  var src = document.getElementById("src"), out = document.getElementById("out"), status = document.getElementById("status");
  var go = document.getElementById("go"), live = document.getElementById("live"), split = document.getElementById("split");
  var frame = document.getElementById("view"), hint = document.getElementById("view-hint");
  var inFlight = false, sent = null, timer = null;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; });
  }
  function say(text, error) { status.textContent = text; status.classList.toggle("error", !!error); }
  function wanted() { return JSON.stringify({text: src.value, raw: true, split: split.checked, view: true}); }

  function show(ans) {
    var items = ans.lines.map(function (fr, k) {
      return '<li><span class="en">' + esc(ans.source[k]) + '</span><span class="fr">' + esc(fr) + "</span></li>";
    });
    out.innerHTML = items.length ? "<ol>" + items.join("") + "</ol>" : "";
    out.setAttribute("data-sentences", String(ans.lines.length));
    var n = ans.trace.length;
    say(ans.lines.length + (ans.lines.length === 1 ? " sentence" : " sentences") + ", " + n +
        (n === 1 ? " pronoun" : " pronouns") + " traced, translated in " + ans.seconds.toFixed(2) + " s");
    if (ans.view_html) { frame.srcdoc = ans.view_html; frame.hidden = false; hint.hidden = true; }
    else { frame.hidden = true; frame.removeAttribute("srcdoc"); hint.hidden = false; }
  }

  function send() {
    clearTimeout(timer);
    if (inFlight) return;               // sent again when the answer comes, if the text changed
    var body = wanted();
    if (body === sent) return;
    sent = body; inFlight = true; go.disabled = true;
    out.querySelectorAll("li").forEach(function (li) { li.classList.add("stale"); });
    say("translating…");
    fetch(CFG.translate, {method: "POST", headers: {"Content-Type": "application/json"}, body: body})
      .then(function (r) { return r.json().then(function (j) { return {ok: r.ok, j: j}; }); })
      .then(function (x) {
        if (!x.ok) { say("the server refused: " + x.j.error, true); return; }
        show(x.j);
      })
      .catch(function (e) { say("no answer from the server: " + e, true); sent = null; })
      .then(function () {
        inFlight = false; go.disabled = false;
        if (wanted() !== sent && live.checked) schedule();
      });
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(send, CFG.pause); }

  src.addEventListener("input", function () { if (live.checked) schedule(); });
  src.addEventListener("keydown", function (ev) { if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); sent = null; send(); } });
  go.addEventListener("click", function () { sent = null; send(); });
  split.addEventListener("change", function () { if (src.value.trim()) send(); });
  window.cadServe = {send: send, busy: function () { return inFlight; }};
  document.body.setAttribute("data-ready", "1");
})();
