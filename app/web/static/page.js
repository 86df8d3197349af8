// JurisGraph's page. Everything shown is set as text (textContent, createElement): questions, answers and the
// knowledge base's articles are untrusted, and the page's policy runs no script but this file.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const NODE_W = 180;
const NODE_H = 40;
// Fill and stroke of a picture's node, by its state (articles, charges) or its kind.
const COLOURS = {
  kept: ["#e8f5e9", "#2e7d32"],
  pruned: ["#ffebee", "#c62828"],
  unverified: ["#fff8e1", "#f9a825"],
  considered: ["#eceff1", "#78909c"],
  question: ["#e3f2fd", "#1565c0"],
  fact: ["#e3f2fd", "#1565c0"],
  element: ["#eceff1", "#455a64"],
  act: ["#eceff1", "#455a64"],
  consultation: ["#f3e5f5", "#6a1b9a"],
  precedent: ["#f3e5f5", "#6a1b9a"],
  answer: ["#ffffff", "#000000"],
  judgment: ["#ffffff", "#000000"],
};

const $ = (id) => document.getElementById(id);
let thread = null; // the conversation the next question continues
let threadKey = null; // its key, which the server gave when it started: no other page has it
let runKey = null; // the key of the run now shown (a paused judgment's, for its review)
let turns = 0;
let running = false;

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function showError(message) {
  $("error").textContent = message;
  show("error", true);
}

function setRunning(on) {
  running = on;
  for (const id of ["ask", "judge", "review-submit", "new-thread"]) $(id).disabled = on;
}

function clearResult() {
  for (const id of ["error", "review", "answer", "picture-section"]) show(id, false);
  $("steps").replaceChildren();
  $("writing").textContent = "";
  $("answer").replaceChildren();
  $("detail").replaceChildren(el("p", "点击一个节点 Click a node", "hint"));
}

// One block of a server-sent event stream: its event name and its JSON data.
function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) name = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  return data.length ? { name, data: JSON.parse(data.join("\n")) } : null;
}

async function run(path, body) {
  if (running) return;
  clearResult();
  setRunning(true);
  show("progress", true);
  $("steps").appendChild(el("li", "提交中 sending…", "running"));
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      const problem = await response.json().catch(() => ({ error: response.statusText }));
      showError(problem.error || response.statusText);
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) handle(event.name, event.data);
      }
    }
  } catch (exc) {
    showError("无法连接服务器 The server cannot be reached: " + exc.message);
  } finally {
    setRunning(false);
    $("writing").textContent = "";
  }
}

// A step's name and what it works on (核验法条 刑法:264), without its state (…, ：完成, : done).
function stepOf(text) {
  return text.split(/…|：|: /)[0];
}

// A step starting adds a running line (or names what the running one works on); its end marks that line done.
function showStep(text) {
  const steps = $("steps");
  const running = text.endsWith("…");
  const last = steps.lastElementChild;
  if (running && last && last.classList.contains("running") && stepOf(text).startsWith(stepOf(last.textContent))) {
    last.textContent = text;
    return;
  }
  if (!running) {
    for (const line of Array.from(steps.querySelectorAll("li.running")).reverse()) {
      if (stepOf(text).startsWith(stepOf(line.textContent))) { // the end may name its outcome (复查初稿 Pass)
        line.textContent = text;
        line.className = "done";
        return;
      }
    }
  }
  steps.appendChild(el("li", text, running ? "running" : "done"));
}

function handle(name, data) {
  if (name === "thread") {
    $("steps").replaceChildren(); // the server has the request: its steps follow
    runKey = data.key;
    if (data.graph === "consult") {
      thread = data.thread;
      threadKey = data.key;
    }
  } else if (name === "queued") {
    $("steps").replaceChildren(el("li", "排队中：前面还有 " + data.ahead + " 个 queued: " + data.ahead + " ahead", "running"));
  } else if (name === "step") {
    showStep(data.text);
  } else if (name === "writing") {
    $("writing").textContent = data.text;
  } else if (name === "review") {
    showReview(data);
  } else if (name === "answer") {
    if (data.view.graph === "consult") showConsult(data.view);
    else showJudgment(data.view);
    drawPicture(data.view.picture);
  } else if (name === "error") {
    showError(data.message);
  }
}

function showIgnored(view, into) {
  for (const sentence of view.ignored) {
    into.appendChild(el("p", "已忽略对系统的指令 Instruction ignored (a question is data, not a command): " + sentence, "ignored"));
  }
}

function auditTable(verdicts) {
  const table = el("table");
  const head = table.createTHead().insertRow();
  for (const title of ["法条 Article", "核验 Verdict", "清单 Checklist"]) head.appendChild(el("th", title));
  const body = table.createTBody();
  for (const v of verdicts) {
    const row = body.insertRow();
    row.appendChild(el("td", v.article_id));
    // An article the evidence did not keep was never judged inapplicable: it may still stand in the conditional tier.
    const kept = v.applicable ? "采用 kept" : v.decided_by === "evidence" ? "未采用 not kept" : "排除 pruned";
    row.appendChild(el("td", kept + " (" + v.decided_by + ")", v.applicable ? "kept" : "pruned"));
    const checks = el("td");
    for (const c of v.checks) checks.appendChild(el("div", (c.holds ? "✓ " : c.stated ? "✗ " : "– ") + c.item));
    if (!v.checks.length) checks.textContent = v.reason;
    row.appendChild(checks);
  }
  return table;
}

// A basis article verbatim, the sentence that decides it marked.
function articleBox(item, className) {
  const box = el("div", null, className);
  box.dataset.article = item.article_id;
  box.appendChild(el("h3", "《" + item.law + "》" + item.number + "  [" + item.article_id + "]"));
  const text = el("p");
  for (const s of item.sentences) text.appendChild(s.decisive ? el("mark", s.text) : el("span", s.text));
  box.appendChild(text);
  return box;
}

function showConsult(view) {
  const answer = $("answer");
  answer.appendChild(el("h2", "回答 Response"));
  showIgnored(view, answer);
  answer.appendChild(el("div", view.response || "（无回答）", "response"));
  answer.appendChild(el("h2", "法律依据 Legal Basis"));
  // Nothing concluded above a conditional tier is not "nothing supports an answer": the articles below do, under
  // the condition the Response states.
  const conditional = (view.conditional || []).length > 0;
  if (!view.basis.length && conditional) answer.appendChild(el("p", "（没有可据以直接得出结论的条文；下列条文在一定条件下适用 Nothing concludes; the articles below apply under a condition）"));
  else if (!view.basis.length) answer.appendChild(el("p", "（回答未引用知识库中的法条 No article of the knowledge base supports an answer）"));
  for (const item of view.basis) {
    const box = articleBox(item, "article");
    const how = [];
    if (item.similar) how.push(item.similar + " 个相似的已答咨询引用了此条 similar answered questions cite it");
    if (item.support !== null && item.support !== undefined) how.push("检索支持度 support " + item.support.toFixed(2));
    if (how.length) box.appendChild(el("p", how.join(" · "), "how"));
    answer.appendChild(box);
  }
  if (conditional) {
    answer.appendChild(el("h2", "条件适用 Conditional basis"));
    for (const item of view.conditional) answer.appendChild(articleBox(item, "article conditional"));
  }
  if (view.verdicts.length) {
    answer.appendChild(el("h2", "核验 Audit"));
    answer.appendChild(auditTable(view.verdicts));
  }
  for (const note of view.audit_notes || []) answer.appendChild(el("p", note, "how"));
  if (view.dropped.length) answer.appendChild(el("p", "已删去的引用 Citations dropped: " + view.dropped.join("、")));
  show("answer", true);
  turns += 1;
  $("thread-id").textContent = thread;
  $("turns").textContent = turns + " 轮 turns";
  show("thread-line", true);
  const turn = el("li");
  turn.appendChild(el("strong", view.question));
  turn.appendChild(el("div", view.response.slice(0, 160) + (view.response.length > 160 ? "…" : "")));
  $("turn-list").appendChild(turn);
  show("history", true);
}

function showJudgment(view) {
  const answer = $("answer");
  answer.appendChild(el("h2", "判决 Judgment"));
  showIgnored(view, answer);
  const facts = el("dl");
  for (const [term, value] of [
    ["罪名 Charges", view.charges.join("、") || "（无）"],
    ["适用法条 Articles", view.articles.join("、") || "（无）"],
    ["刑期 Term", view.term],
  ]) {
    facts.appendChild(el("dt", term));
    facts.appendChild(el("dd", value));
  }
  answer.appendChild(facts);
  if (view.undecided) answer.appendChild(el("p", "未量刑 No sentence: " + view.undecided, "ignored"));
  else for (const reason of view.no_offence || []) answer.appendChild(el("p", "不予认定 Not an offence: " + reason, "ignored"));
  answer.appendChild(el("h2", "理由 Reasoning"));
  answer.appendChild(el("div", view.reasoning || "（无）", "response"));
  if (view.family_checks.length) {
    answer.appendChild(el("h2", "相近罪名核对 Family checks"));
    const list = el("ul");
    for (const c of view.family_checks) {
      const outcome = c.decided === c.charge ? "成立 holds" : c.decided ? "→ " + c.decided : "不予认定 left out";
      const untold = c.by === "untold" ? "；事实未述此行为 the fact never tells this act"
        : c.by === "law" ? "；同一行为只能择一认定 one course of conduct, one of these" : "";
      list.appendChild(el("li", c.family + "：" + c.charge + " " + outcome + "（" + c.element + untold + "）" + (c.quote ? "「" + c.quote + "」" : "")));
    }
    answer.appendChild(list);
  }
  answer.appendChild(el("h2", "证据 Evidence"));
  const evidence = el("ol");
  for (const e of view.evidence) evidence.appendChild(el("li", "[" + e.n + "] " + e.id + "　" + e.text));
  answer.appendChild(evidence);
  if (view.verdicts.length) {
    answer.appendChild(el("h2", "核验 Audit"));
    answer.appendChild(auditTable(view.verdicts));
  }
  show("answer", true);
}

let paused = null; // the run waiting for the person's review

function showReview(data) {
  paused = { ...data, key: runKey };
  const items = $("review-items");
  items.replaceChildren();
  for (const pending of data.pending) {
    for (const v of pending.verdicts) {
      const box = el("fieldset", null, "verdict");
      box.dataset.interrupt = pending.id;
      box.dataset.article = v.article_id;
      box.dataset.applicable = String(v.applicable);
      box.appendChild(el("legend", v.article_id));
      box.appendChild(el("p", "模型认为 The model proposes: " + (v.applicable ? "适用 APPLICABLE" : "不适用 NOT applicable") + "（" + v.reason + "）"));
      const checks = el("ul");
      for (const c of v.checks) checks.appendChild(el("li", (c.holds ? "✓ " : "✗ ") + c.item + (c.reason ? " — " + c.reason : "")));
      box.appendChild(checks);
      const name = "choice-" + v.article_id;
      for (const [value, text] of [["accept", "接受 Accept"], ["override", "推翻 Override"]]) {
        const label = el("label");
        const input = el("input");
        input.type = "radio";
        input.name = name;
        input.value = value;
        input.checked = value === "accept";
        label.appendChild(input);
        label.appendChild(document.createTextNode(" " + text + " "));
        box.appendChild(label);
      }
      const reason = el("input");
      reason.type = "text";
      reason.placeholder = "理由 Your reason";
      reason.className = "reason";
      box.appendChild(reason);
      items.appendChild(box);
    }
  }
  show("review", true);
}

function submitReview(event) {
  event.preventDefault();
  if (!paused) return;
  const answers = {};
  for (const box of $("review-items").querySelectorAll("fieldset")) {
    const id = box.dataset.interrupt;
    answers[id] = answers[id] || {};
    const choice = box.querySelector("input[type=radio]:checked").value;
    if (choice === "override") {
      answers[id][box.dataset.article] = {
        applicable: box.dataset.applicable !== "true",
        reason: box.querySelector("input.reason").value || "人工复核",
      };
    }
  }
  const body = { graph: paused.graph, thread: paused.thread, key: paused.key, answers };
  paused = null;
  run("api/resume", body);
}

function drawPicture(picture) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("xmlns", SVG_NS);
  svg.setAttribute("id", "evidence-svg");
  const width = picture.width + NODE_W;
  svg.setAttribute("viewBox", -NODE_W / 2 + " 0 " + width + " " + picture.height);
  svg.setAttribute("width", width);
  svg.setAttribute("height", picture.height);
  svg.setAttribute("font-family", "sans-serif");
  const background = document.createElementNS(SVG_NS, "rect");
  for (const [k, v] of [["x", -NODE_W / 2], ["y", 0], ["width", width], ["height", picture.height], ["fill", "#ffffff"]]) background.setAttribute(k, v);
  svg.appendChild(background);
  const at = Object.fromEntries(picture.nodes.map((n) => [n.id, n]));
  for (const e of picture.edges) {
    const a = at[e.source];
    const b = at[e.target];
    const x1 = a.x + NODE_W / 2;
    const x2 = b.x - NODE_W / 2;
    const mid = (x1 + x2) / 2;
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", `M${x1},${a.y} C${mid},${a.y} ${mid},${b.y} ${x2},${b.y}`);
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", "#9e9e9e");
    path.setAttribute("stroke-width", "1.2");
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = e.label;
    path.appendChild(title);
    svg.appendChild(path);
  }
  for (const n of picture.nodes) {
    const [fill, stroke] = COLOURS[n.state] || COLOURS[n.kind] || ["#ffffff", "#000000"];
    const g = document.createElementNS(SVG_NS, "g");
    g.setAttribute("class", "node");
    g.dataset.id = n.id;
    g.dataset.state = n.state;
    const rect = document.createElementNS(SVG_NS, "rect");
    for (const [k, v] of [["x", n.x - NODE_W / 2], ["y", n.y - NODE_H / 2], ["width", NODE_W], ["height", NODE_H], ["rx", 6], ["fill", fill], ["stroke", stroke], ["stroke-width", 1.5]]) rect.setAttribute(k, v);
    const text = document.createElementNS(SVG_NS, "text");
    for (const [k, v] of [["x", n.x], ["y", n.y + 5], ["text-anchor", "middle"], ["font-size", 13], ["fill", "#1b1b1b"]]) text.setAttribute(k, v);
    text.textContent = n.label;
    g.appendChild(rect);
    g.appendChild(text);
    g.addEventListener("click", () => showNode(n));
    svg.appendChild(g);
  }
  $("picture").replaceChildren(svg);
  show("picture-section", true);
}

const KINDS = {
  question: "问题 Question", element: "要素 Element", article: "法条 Article", consultation: "已答咨询 Answered consultation",
  answer: "回答 Answer", fact: "事实 Fact", act: "行为 Act", charge: "罪名 Charge", precedent: "判例 Precedent", judgment: "判决 Judgment",
};

function showNode(n) {
  const detail = $("detail");
  detail.replaceChildren(el("h3", (KINDS[n.kind] || n.kind) + (n.state ? " · " + n.state : "")));
  detail.appendChild(el("p", n.text || n.label));
}

function download(blob, name) {
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

function svgBlob() {
  const text = new XMLSerializer().serializeToString($("evidence-svg"));
  return new Blob([text], { type: "image/svg+xml" });
}

function exportPng() {
  const svg = $("evidence-svg");
  const image = new Image();
  const url = URL.createObjectURL(svgBlob());
  image.onload = () => {
    const canvas = el("canvas");
    canvas.width = Number(svg.getAttribute("width")) * 2;
    canvas.height = Number(svg.getAttribute("height")) * 2;
    const context = canvas.getContext("2d");
    context.scale(2, 2);
    context.drawImage(image, 0, 0);
    URL.revokeObjectURL(url);
    canvas.toBlob((blob) => download(blob, "evidence.png"), "image/png");
  };
  image.src = url;
}

function selectTab(name) {
  const consult = name === "consult";
  $("tab-consult").setAttribute("aria-selected", String(consult));
  $("tab-judge").setAttribute("aria-selected", String(!consult));
  show("consult-form", consult);
  show("judge-form", !consult);
}

document.addEventListener("DOMContentLoaded", () => {
  $("tab-consult").addEventListener("click", () => selectTab("consult"));
  $("tab-judge").addEventListener("click", () => selectTab("judge"));
  $("consult-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run("api/ask", { question: $("question").value, thread, key: threadKey, review: $("consult-review").checked });
  });
  $("judge-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run("api/judge", { fact: $("fact").value, review: $("judge-review").checked });
  });
  $("review-form").addEventListener("submit", submitReview);
  $("new-thread").addEventListener("click", () => {
    thread = null;
    threadKey = null;
    turns = 0;
    $("turn-list").replaceChildren();
    for (const id of ["history", "thread-line"]) show(id, false);
    clearResult();
    show("progress", false);
  });
  $("export-svg").addEventListener("click", () => download(svgBlob(), "evidence.svg"));
  $("export-png").addEventListener("click", exportPng);
});
