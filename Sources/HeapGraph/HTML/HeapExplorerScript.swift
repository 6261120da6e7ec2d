/// The heap explorer page's script: decodes the embedded data (``HeapExplorer``) and draws the
/// views on demand, never more than a page of rows at a time.
///
/// Views: Summary, Types (sortable, filtered by the search box), Dominators (a tree whose
/// children are found and drawn when a node is expanded, largest first, 100 at a time), Leaks
/// (drawn by the page, instances listed on demand) and the object Inspector. Addresses select
/// them: `#view=types`, `#object=42`; every change goes through the address, so the back button
/// returns to the previous view. When the first view is drawn the script sets the performance
/// mark `explorer-first-view` (and `window.explorerFirstView`, its time), which the benchmark reads.
enum HeapExplorerScript {
  static let source = #"""
    (async function () {
      "use strict";
      const PAGE = 100;
      const VIEWS = ["summary", "types", "dominators", "leaks", "inspector"];
      const $ = (selector, root) => (root || document).querySelector(selector);
      const esc = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
      const num = (value) => Math.round(value).toLocaleString("en-US");
      const status = $("#status");

      // MARK: Decoding

      async function bytesOf(element) {
        const text = element.textContent.replace(/\s+/g, "");
        let bytes;
        if (Uint8Array.fromBase64) {
          bytes = Uint8Array.fromBase64(text);
        } else {
          const binary = atob(text);
          bytes = new Uint8Array(binary.length);
          for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        }
        if (element.dataset.encoding !== "gzip") return bytes;
        const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        return new Uint8Array(await new Response(stream).arrayBuffer());
      }

      function decode(buffer) {
        const headerLength = buffer[0] | (buffer[1] << 8) | (buffer[2] << 16) | (buffer[3] * 16777216);
        const header = JSON.parse(new TextDecoder().decode(buffer.subarray(4, 4 + headerLength)));
        let position = 4 + headerLength;
        function next() {
          let byte = buffer[position++];
          if (byte < 128) return byte;
          let value = byte & 127, scale = 128;
          do { byte = buffer[position++]; value += (byte & 127) * scale; scale *= 128; } while (byte >= 128);
          return value;
        }
        const signed = (value) => (value % 2 ? -(value + 1) / 2 : value / 2);
        const n = header.objectCount, heap = { header, n };
        heap.ids = new Float64Array(n);
        for (let i = 0, id = 0; i < n; i++) { id += signed(next()); heap.ids[i] = id; }
        heap.type = new Int32Array(n); for (let i = 0; i < n; i++) heap.type[i] = next();
        heap.size = new Float64Array(n); for (let i = 0; i < n; i++) heap.size[i] = next() - 1;
        heap.retained = new Float64Array(n); for (let i = 0; i < n; i++) heap.retained[i] = next();
        heap.dominator = new Int32Array(n); for (let i = 0; i < n; i++) heap.dominator[i] = next() - 2;
        heap.parent = new Int32Array(n); for (let i = 0; i < n; i++) heap.parent[i] = next() - 2;
        heap.generation = new Float64Array(n); for (let i = 0; i < n; i++) heap.generation[i] = next() - 1;
        heap.stack = new Int32Array(n); for (let i = 0; i < n; i++) heap.stack[i] = next() - 1;
        heap.address = new Float64Array(n);
        for (let i = 0, address = 0; i < n; i++) { address += signed(next()); heap.address[i] = address; }
        heap.strongOffsets = new Int32Array(n + 1);
        for (let i = 0; i < n; i++) heap.strongOffsets[i + 1] = heap.strongOffsets[i] + next();
        const strongCount = header.strongCount;
        heap.strongTargets = new Int32Array(strongCount); heap.strongLabels = new Int32Array(strongCount);
        for (let node = 0, edge = 0; node < n; node++) {
          for (let target = node, end = heap.strongOffsets[node + 1]; edge < end; edge++) {
            target += signed(next()); heap.strongTargets[edge] = target; heap.strongLabels[edge] = next() - 1;
          }
        }
        const weakCount = header.weakCount;
        heap.weakSources = new Int32Array(weakCount); heap.weakTargets = new Int32Array(weakCount);
        heap.weakLabels = new Int32Array(weakCount); heap.weakOwnerships = new Uint8Array(weakCount);
        for (let i = 0, source = 0; i < weakCount; i++) {
          source += next(); heap.weakSources[i] = source; heap.weakTargets[i] = source + signed(next());
          heap.weakLabels[i] = next() - 1; heap.weakOwnerships[i] = next();
        }
        return heap;
      }

      let heap;
      try {
        heap = decode(await bytesOf($("#heap-data")));
      } catch (error) {
        status.textContent = "This page could not read its data (" + error + "). Open it in a current Chromium, Firefox or Safari.";
        return;
      }
      const H = heap.header;
      const OWNERSHIP = ["strong", "weak", "unowned", "unmanaged"];

      // MARK: Objects

      const typeName = (node) => H.types[heap.type[node]];
      const label = (index) => (index < 0 ? "" : H.labels[index]);
      const objectID = (node) => heap.ids[node];
      function nodeOf(id) {
        let low = 0, high = heap.n;
        while (low < high) { const middle = (low + high) >> 1; if (heap.ids[middle] < id) low = middle + 1; else high = middle; }
        return low < heap.n && heap.ids[low] === id ? low : -1;
      }
      const link = (node) =>
        `<a class="obj" href="#object=${objectID(node)}" data-node="${node}">${esc(typeName(node))} <span class="oid">#${objectID(node)}</span></a>`;
      const totalShallow = heap.size.reduce((sum, size) => sum + Math.max(size, 0), 0);
      const share = (bytes) => (totalShallow > 0 ? ((100 * bytes) / totalShallow).toFixed(1) + "%" : "");

      /// The `k` nodes of `nodes` with the largest `key`, largest first (smaller node first on
      /// ties), through a heap of `k`: never a sort of a million.
      function largest(nodes, count, key, k) {
        const heapNodes = new Int32Array(Math.min(k, count));
        let size = 0;
        const less = (a, b) => key[a] < key[b] || (key[a] === key[b] && a > b);
        function down(i) {
          for (;;) {
            const l = 2 * i + 1, r = l + 1; let m = i;
            if (l < size && less(heapNodes[l], heapNodes[m])) m = l;
            if (r < size && less(heapNodes[r], heapNodes[m])) m = r;
            if (m === i) return;
            const t = heapNodes[i]; heapNodes[i] = heapNodes[m]; heapNodes[m] = t; i = m;
          }
        }
        for (let i = 0; i < count; i++) {
          const node = nodes(i);
          if (size < heapNodes.length) {
            let j = size++; heapNodes[j] = node;
            while (j > 0) { const p = (j - 1) >> 1; if (!less(heapNodes[j], heapNodes[p])) break; const t = heapNodes[j]; heapNodes[j] = heapNodes[p]; heapNodes[p] = t; j = p; }
          } else if (size > 0 && less(heapNodes[0], node)) { heapNodes[0] = node; down(0); }
        }
        return Array.from(heapNodes.subarray(0, size)).sort((a, b) => (less(a, b) ? 1 : less(b, a) ? -1 : 0));
      }

      // Children in the dominator tree, as rows (index n: the virtual root), built when first needed.
      let dominated;
      function dominatedRows() {
        if (dominated) return dominated;
        const offsets = new Int32Array(heap.n + 2);
        for (let i = 0; i < heap.n; i++) { const d = heap.dominator[i]; if (d !== -2) offsets[(d < 0 ? heap.n : d) + 1]++; }
        for (let i = 0; i <= heap.n; i++) offsets[i + 1] += offsets[i];
        const fill = offsets.slice(), children = new Int32Array(offsets[heap.n + 1]);
        for (let i = 0; i < heap.n; i++) { const d = heap.dominator[i]; if (d !== -2) children[fill[d < 0 ? heap.n : d]++] = i; }
        return (dominated = { offsets, children });
      }
      function dominatedBy(parent, k) {
        const rows = dominatedRows(), start = rows.offsets[parent], count = rows.offsets[parent + 1] - start;
        return { total: count, nodes: largest((i) => rows.children[start + i], count, heap.retained, k) };
      }

      // Referrers: strong references into each node, as rows, built when first needed.
      let referrers;
      function referrerRows() {
        if (referrers) return referrers;
        const offsets = new Int32Array(heap.n + 1), targets = heap.strongTargets;
        for (let i = 0; i < targets.length; i++) offsets[targets[i] + 1]++;
        for (let i = 0; i < heap.n; i++) offsets[i + 1] += offsets[i];
        const fill = offsets.slice(0, heap.n), edges = new Int32Array(targets.length);
        for (let node = 0; node < heap.n; node++) {
          for (let e = heap.strongOffsets[node], end = heap.strongOffsets[node + 1]; e < end; e++) edges[fill[targets[e]]++] = e;
        }
        const source = new Int32Array(targets.length);
        for (let node = 0; node < heap.n; node++) source.fill(node, heap.strongOffsets[node], heap.strongOffsets[node + 1]);
        return (referrers = { offsets, edges, source });
      }
      function weakFrom(node) {
        const out = [];
        let low = 0, high = heap.weakSources.length;
        while (low < high) { const m = (low + high) >> 1; if (heap.weakSources[m] < node) low = m + 1; else high = m; }
        for (let i = low; i < heap.weakSources.length && heap.weakSources[i] === node; i++) out.push(i);
        return out;
      }
      function weakTo(node) {
        const out = [];
        for (let i = 0; i < heap.weakTargets.length; i++) if (heap.weakTargets[i] === node) out.push(i);
        return out;
      }

      // MARK: Views

      let current = null, drawn = {};
      function show(view) {
        for (const name of VIEWS) {
          $("#view-" + name).hidden = name !== view;
          const tab = $(`nav a[data-view="${name}"]`);
          if (name === view) tab.setAttribute("aria-current", "page"); else tab.removeAttribute("aria-current");
        }
        if (!drawn[view] && DRAW[view]) { DRAW[view](); drawn[view] = true; }
        if (current !== view) select(-1);
        current = view;
      }

      function drawSummary() {
        const groups = H.leakGroups, survivors = H.survivors;
        const tile = (value, text, tone, href) =>
          `<a class="tile ${tone}" href="${href}"><span class="value">${num(value)}</span><span class="label">${esc(text)}</span></a>`;
        let out = `<nav class="tiles">`;
        out += tile(H.leakedObjectCount, `leaked objects in ${groups.length} group${groups.length === 1 ? "" : "s"}`, groups.length ? "bad" : "good", "#view=leaks");
        out += tile(survivors.length, "survivors", survivors.length ? "bad" : "good", "#view=summary");
        out += tile(H.cycleCount, "retain cycles", H.cycleCount ? "bad" : "good", "#view=leaks");
        out += tile(heap.n, "objects", "neutral", "#view=types");
        out += tile(totalShallow, "bytes (shallow, in total)", "neutral", "#view=dominators");
        out += tile(H.referenceCount, `references (${num(H.weakCount)} weak or unowned)`, "neutral", "#view=types");
        out += `</nav>`;
        out += `<h2>Leaks</h2>`;
        if (!H.hasRoots) out += `<p class="muted">The snapshot lists no roots, so leaked objects cannot be told from live ones.</p>`;
        else if (!groups.length) out += `<p class="muted">None: every object is reachable from a root.</p>`;
        else {
          out += `<table id="summary-leaks"><thead><tr><th>Instances</th><th>Leak</th><th>Objects</th><th>Retained bytes</th></tr></thead><tbody>`;
          groups.slice(0, PAGE).forEach((group, index) => {
            out += `<tr class="row" data-href="#view=leaks&group=${index + 1}"><td class="n">${num(group.instances)}</td><td><a href="#view=leaks&group=${index + 1}" class="chain">${esc(group.title)}</a></td><td class="n">${num(group.objects)}</td><td class="n">${num(group.retained)}</td></tr>`;
          });
          out += `</tbody></table>`;
          if (groups.length > PAGE) out += `<p class="muted">The ${PAGE} that retain most of ${num(groups.length)} groups; <a href="#view=leaks">the Leaks view</a> lists them all.</p>`;
        }
        out += `<h2>Survivors</h2>`;
        if (!survivors.length) out += `<p class="muted">None.</p>`;
        else {
          out += `<ul class="plain">`;
          for (const survivor of survivors.slice(0, PAGE)) {
            out += `<li class="row" data-node="${survivor.node}">${survivor.node >= 0 ? link(survivor.node) : ""} <span class="muted">held from ${esc(survivor.root)}; suspect</span> <span class="suspect">${esc(survivor.suspect)}</span> <span class="muted">${num(survivor.retained)} bytes retained</span></li>`;
          }
          out += `</ul>`;
          if (survivors.length > PAGE) out += `<p class="muted">The first ${PAGE} of ${num(survivors.length)}; the JSON report lists them all.</p>`;
        }
        const memory = H.memory;
        out += `<h2>What holds the memory</h2><p class="muted">${num(memory.objects)} objects, ${num(memory.bytes)} bytes` +
          (memory.leakedBytes ? ` (${num(memory.leakedBytes)} of them leaked, above)` : "") + `.</p>`;
        if (memory.suspects.length) {
          out += `<h3>Leak suspects</h3><ol id="summary-suspects">`;
          for (const suspect of memory.suspects) {
            out += `<li><span class="chain">${esc(suspect.path)}</span>${suspect.objects === 1 ? " retains" : ": " + num(suspect.objects) + " objects retain"} ${esc(suspect.share)} of the heap (${num(suspect.retained)} bytes)` +
              (suspect.accumulation ? `<div class="muted">most of it in <span class="chain">${esc(suspect.accumulation)}</span>: ${num(suspect.accumulationObjects)} objects, ${num(suspect.accumulationBytes)} bytes</div>` : "") + `</li>`;
          }
          out += `</ol>`;
        }
        out += `<h3>Top retainers, by retaining path</h3><table id="summary-retainers"><thead><tr><th>Path</th><th>Objects</th><th>Retained bytes</th><th>Share</th></tr></thead><tbody>`;
        for (const retainer of memory.retainers) {
          out += `<tr><td><span class="chain">${esc(retainer.path)}</span>${retainer.sites.map((site) => `<div class="muted">allocated at ${esc(site)}</div>`).join("")}</td>` +
            `<td class="n">${num(retainer.objects)}</td><td class="n">${num(retainer.retained)}</td><td class="n">${esc(retainer.share)}</td></tr>`;
        }
        out += `</tbody></table>`;
        if (memory.retainerCount > memory.retainers.length) out += `<p class="muted">The first ${memory.retainers.length} of ${num(memory.retainerCount)} paths; the dominator tree has every object.</p>`;
        $("#view-summary").innerHTML = out;
      }

      // Types: the rows of what holds the memory, one per type.
      const typeRows = H.typeRows.map(([type, count, shallow, retained]) =>
        ({ type, name: H.types[type], lower: (H.types[type] + "\n" + H.qualifiedTypes[type]).toLowerCase(), count, shallow, retained }));
      const typeState = { key: "shallow", descending: true, filter: "", shown: PAGE };
      function drawTypes() {
        const view = $("#view-types");
        if (!view.firstChild) {
          view.innerHTML = `<p class="muted" id="types-status"></p><table id="types"><thead><tr>` +
            `<th data-key="name">Type</th><th data-key="count" data-numeric>Count</th><th data-key="shallow" data-numeric>Shallow bytes</th><th data-key="retained" data-numeric>Retained bytes</th>` +
            `</tr></thead><tbody></tbody></table><button type="button" class="more" id="types-more" hidden>Show more</button>`;
          for (const header of view.querySelectorAll("th")) header.addEventListener("click", () => {
            const key = header.dataset.key;
            typeState.descending = typeState.key === key ? !typeState.descending : header.hasAttribute("data-numeric");
            typeState.key = key; typeState.shown = PAGE; drawTypes();
          });
          $("#types-more").addEventListener("click", () => { typeState.shown += PAGE; drawTypes(); });
        }
        const needle = typeState.filter.toLowerCase();
        const rows = needle ? typeRows.filter((row) => row.lower.includes(needle)) : typeRows.slice();
        const key = typeState.key, sign = typeState.descending ? -1 : 1;
        rows.sort((a, b) => {
          const x = key === "name" ? a.name : a[key] || 0, y = key === "name" ? b.name : b[key] || 0;
          return x < y ? -sign : x > y ? sign : a.type - b.type;
        });
        for (const header of view.querySelectorAll("th")) {
          if (header.dataset.key === key) header.setAttribute("aria-sort", typeState.descending ? "descending" : "ascending");
          else header.removeAttribute("aria-sort");
        }
        let body = "";
        for (const row of rows.slice(0, typeState.shown)) {
          body += `<tr class="row type-row" data-type="${row.type}"><td><button type="button" class="toggle" aria-expanded="false" aria-label="instances">▸</button> <code>${esc(row.name)}</code></td><td class="n">${num(row.count)}</td><td class="n">${num(row.shallow)}</td><td class="n">${num(row.retained)}</td></tr>`;
        }
        view.querySelector("tbody").innerHTML = body;
        $("#types-status").textContent = `${num(rows.length)} of ${num(typeRows.length)} types` + (needle ? ` matching “${typeState.filter}”` : "") + `; click a type for its largest instances.`;
        $("#types-more").hidden = rows.length <= typeState.shown;
        select(-1);
      }
      function toggleType(row) {
        const next = row.nextElementSibling;
        if (next && next.classList.contains("instances")) { next.remove(); row.querySelector(".toggle").setAttribute("aria-expanded", "false"); row.querySelector(".toggle").textContent = "▸"; return; }
        const type = +row.dataset.type;
        const nodes = [];
        for (let i = 0; i < heap.n; i++) if (heap.type[i] === type) nodes.push(i);
        const count = nodes.length;
        const top = largest((i) => nodes[i], nodes.length, heap.retained, PAGE);
        let out = `<tr class="instances"><td colspan="4"><ol>`;
        for (const node of top) out += `<li class="row" data-node="${node}">${link(node)} <span class="muted">${num(Math.max(heap.size[node], 0))} bytes, ${num(heap.retained[node])} retained</span></li>`;
        out += `</ol>${count > top.length ? `<p class="muted">The ${top.length} largest of ${num(count)} instances.</p>` : ""}</td></tr>`;
        row.insertAdjacentHTML("afterend", out);
        row.querySelector(".toggle").setAttribute("aria-expanded", "true");
        row.querySelector(".toggle").textContent = "▾";
      }

      function drawDominators() {
        const view = $("#view-dominators");
        view.innerHTML = `<p class="muted">Each object holds what it dominates: everything that only it keeps alive. Top level: what the roots and the leaks' entries hold alone. Expand a node (click, or → / l) for its children, largest first.</p>` +
          `<div class="tree-head"><span>Object</span><span>Retained bytes</span><span>Shallow</span><span>Share</span></div><div id="dominator-tree" role="tree"></div>`;
        const rows = dominatedRows();
        $("#dominator-tree").innerHTML = rows.offsets[heap.n + 1] > rows.offsets[heap.n]
          ? dominatorRows(heap.n, 0, 0)
          : `<p class="muted">Empty: the snapshot lists no roots, and nothing leaked can be told from what is live, so no object is known to hold another.</p>`;
      }
      function dominatorRows(parent, depth, from) {
        const { total, nodes } = dominatedBy(parent, from + PAGE), rows = dominatedRows();
        let out = "";
        for (const node of nodes.slice(from)) {
          const leaf = rows.offsets[node + 1] === rows.offsets[node];
          out += `<div class="row tree-row" role="treeitem" data-node="${node}" data-depth="${depth}" style="padding-left:${depth * 18}px">` +
            `<span><button type="button" class="toggle" aria-expanded="false"${leaf ? " disabled" : ""}>${leaf ? "·" : "▸"}</button> ${link(node)}</span>` +
            `<span class="n">${num(heap.retained[node])}</span><span class="n">${num(Math.max(heap.size[node], 0))}</span><span class="n">${share(heap.retained[node])}</span></div>`;
        }
        if (total > from + PAGE) {
          out += `<div class="row tree-row more" data-parent="${parent}" data-depth="${depth}" data-from="${from + PAGE}" style="padding-left:${depth * 18 + 24}px"><button type="button" class="more">Show ${Math.min(PAGE, total - from - PAGE)} more of ${num(total - from - PAGE)}</button></div>`;
        }
        return out;
      }
      function expand(row, open) {
        const button = row.querySelector(".toggle");
        if (!button || button.disabled) return;
        const isOpen = button.getAttribute("aria-expanded") === "true";
        if (open === isOpen) return;
        const depth = +row.dataset.depth;
        if (isOpen) {
          while (row.nextElementSibling && +row.nextElementSibling.dataset.depth > depth) row.nextElementSibling.remove();
        } else {
          row.insertAdjacentHTML("afterend", dominatorRows(+row.dataset.node, depth + 1, 0));
        }
        button.setAttribute("aria-expanded", String(!isOpen));
        button.textContent = isOpen ? "▸" : "▾";
      }
      function showMore(row) {
        row.insertAdjacentHTML("afterend", dominatorRows(+row.dataset.parent, +row.dataset.depth, +row.dataset.from));
        row.remove();
      }

      // Leak groups past those the page draws: listed from the data, a page at a time.
      function drawLeaks() {
        const more = $("#more-groups");
        if (more) moreGroups(more);
      }
      function moreGroups(container) {
        const from = +container.dataset.from, to = Math.min(from + PAGE, H.leakGroups.length);
        let out = "";
        for (let index = from; index < to; index++) {
          const group = H.leakGroups[index];
          out += `<article class="leak-group" id="group-${index + 1}" data-instances="${group.instances}"><h3><span class="count">${num(group.instances)} ×</span> <span class="chain">${esc(group.title)}</span></h3>` +
            `<p class="muted">${num(group.objects)} objects, ${num(group.retained)} bytes retained; fingerprint <span class="fingerprint">${esc(group.fingerprint)}</span></p>` +
            `<details data-group="${index}"><summary>Instances (${num(group.instances)})</summary></details></article>`;
        }
        container.querySelector("button.more-groups")?.remove();
        container.insertAdjacentHTML("beforeend", out);
        container.dataset.from = to;
        if (to < H.leakGroups.length) container.insertAdjacentHTML("beforeend", `<button type="button" class="more more-groups">Show ${Math.min(PAGE, H.leakGroups.length - to)} more of ${num(H.leakGroups.length - to)} groups</button>`);
      }

      function listInstances(details) {
        if (details.dataset.listed) return;
        details.dataset.listed = "1";
        details.insertAdjacentHTML("beforeend", `<ol class="instances"></ol>`);
        moreInstances(details);
      }
      // A leak group's instances, a page at a time.
      function moreInstances(details) {
        const group = H.leakGroups[+details.dataset.group], list = details.querySelector("ol.instances");
        const from = list.children.length, to = Math.min(from + PAGE, group.entries.length);
        let out = "";
        for (const node of group.entries.slice(from, to)) if (node >= 0) out += `<li class="row" data-node="${node}">${link(node)} <span class="muted">${num(heap.retained[node])} bytes retained</span></li>`;
        list.insertAdjacentHTML("beforeend", out);
        details.querySelector("button.more-instances")?.remove();
        const rest = group.entries.length - to;
        if (rest > 0) details.insertAdjacentHTML("beforeend", `<button type="button" class="more more-instances">Show ${Math.min(PAGE, rest)} more of ${num(rest)}</button>`);
        else if (group.instances > group.entries.length) details.insertAdjacentHTML("beforeend", `<p class="muted">The first ${num(group.entries.length)} of ${num(group.instances)} instances.</p>`);
      }

      // An object's fields (strong references out, then the weak, unowned and unmanaged ones,
      // marked so) or referrers (in), from `from`, a page at a time, then a button for the next.
      function referencePage(list, node, from) {
        const isFields = list === "fields", rows = isFields ? null : referrerRows();
        const strongStart = isFields ? heap.strongOffsets[node] : rows.offsets[node];
        const strongCount = (isFields ? heap.strongOffsets[node + 1] : rows.offsets[node + 1]) - strongStart;
        const weak = isFields ? weakFrom(node) : weakTo(node), total = strongCount + weak.length;
        if (!total) return { items: "", more: "", html: `<p class="muted">None.</p>` };
        let out = "";
        for (let i = from; i < Math.min(from + PAGE, total); i++) {
          if (i < strongCount) {
            const e = isFields ? strongStart + i : rows.edges[strongStart + i], other = isFields ? heap.strongTargets[e] : rows.source[e];
            const name = esc(label(heap.strongLabels[e]) || "(no label)");
            out += isFields
              ? `<li class="row strong" data-node="${other}"><code class="label">${name}</code> → ${link(other)}</li>`
              : `<li class="row strong" data-node="${other}">${link(other)} <code class="label">.${name}</code></li>`;
          } else {
            const w = weak[i - strongCount], other = isFields ? heap.weakTargets[w] : heap.weakSources[w], kind = OWNERSHIP[heap.weakOwnerships[w]];
            const name = esc(label(heap.weakLabels[w]) || "(no label)");
            out += isFields
              ? `<li class="row ${kind}" data-node="${other}"><span class="ownership">${kind}</span> <code class="label">${name}</code> → ${link(other)}</li>`
              : `<li class="row ${kind}" data-node="${other}"><span class="ownership">${kind}</span> ${link(other)} <code class="label">.${name}</code></li>`;
          }
        }
        const rest = total - from - PAGE;
        const more = rest > 0
          ? `<button type="button" class="more more-references" data-list="${list}" data-node="${node}" data-from="${from + PAGE}">Show ${Math.min(PAGE, rest)} more of ${num(rest)}</button>`
          : "";
        return { items: out, more, html: `<ul class="refs">${out}</ul>${more}` };
      }
      function moreReferences(button) {
        const page = referencePage(button.dataset.list, +button.dataset.node, +button.dataset.from);
        const container = document.getElementById(button.dataset.list);
        container.querySelector("ul.refs").insertAdjacentHTML("beforeend", page.items);
        button.remove();
        container.insertAdjacentHTML("beforeend", page.more);
      }
      function inspect(node) {
        const view = $("#view-inspector");
        if (node < 0) { view.innerHTML = `<p class="muted">No object with that id. Pick one in another view.</p>`; return; }
        const id = objectID(node);
        let out = `<h2 id="inspected" data-node="${node}"><code>${esc(typeName(node))}</code> <span class="oid">#${id}</span></h2>`;
        const stack = heap.stack[node] >= 0 ? H.stacks[heap.stack[node]] : null;
        const dominator = heap.dominator[node];
        out += `<table class="facts"><tbody>` +
          `<tr><th>Type</th><td><code>${esc(typeName(node))}</code></td></tr>` +
          `<tr><th>Object id</th><td>${id}</td></tr>` +
          `<tr><th>Address</th><td><code>${heap.address[node] ? "0x" + heap.address[node].toString(16) : "unknown"}</code></td></tr>` +
          `<tr><th>Size</th><td id="size">${heap.size[node] < 0 ? "unknown" : num(heap.size[node]) + " bytes"}</td></tr>` +
          `<tr><th>Retained size</th><td id="retained">${num(heap.retained[node])} bytes</td></tr>` +
          `<tr><th>Generation</th><td>${heap.generation[node] < 0 ? "unknown" : heap.generation[node]}</td></tr>` +
          `<tr><th>Dominator</th><td>${dominator >= 0 ? link(dominator) : dominator === -1 ? "none: held by the roots or a leak's entry" : "none: unreached"}</td></tr>` +
          `</tbody></table>`;
        out += `<h3>Allocation stack</h3>`;
        out += stack ? `<ol class="stack">${stack.map((frame) => `<li><code>${esc(H.frames[frame])}</code></li>`).join("")}</ol>` : `<p class="muted">Not captured.</p>`;

        // Fields (strong references out, then the others) and referrers (in), a page at a time.
        const strongOut = heap.strongOffsets[node + 1] - heap.strongOffsets[node], weakOut = weakFrom(node);
        out += `<h3>Fields <span class="muted">(${num(strongOut)} strong, ${num(weakOut.length)} not retaining)</span></h3><div id="fields">` +
          referencePage("fields", node, 0).html + `</div>`;
        const rows = referrerRows(), strongIn = rows.offsets[node + 1] - rows.offsets[node], weakIn = weakTo(node);
        out += `<h3>Referrers <span class="muted">(${num(strongIn)} strong, ${num(weakIn.length)} not retaining)</span></h3><div id="referrers">` +
          referencePage("referrers", node, 0).html + `</div>`;

        // The shortest path from a root over strong references: weak ones are shown, never taken.
        out += `<h3>Shortest path from a root</h3><div id="path">`;
        if (!H.hasRoots) {
          out += `<p class="muted">The snapshot lists no roots, so there is no path from one.</p>`;
        } else if (heap.parent[node] === -2) {
          out += `<p class="muted">No root reaches this object over strong references: it leaked` + (dominator >= 0 ? `, held by ${link(dominator)}` : "") + `.</p>`;
          const notTaken = weakIn.map((w) => `<li class="not-taken">${link(heap.weakSources[w])} <code class="label">.${esc(label(heap.weakLabels[w]))}</code> <span class="ownership">${OWNERSHIP[heap.weakOwnerships[w]]}, not taken</span></li>`);
          if (notTaken.length) out += `<ul class="refs">${notTaken.join("")}</ul>`;
        } else {
          const chain = [], seen = new Set();
          for (let step = node; step >= 0 && !seen.has(step); step = heap.parent[step]) { seen.add(step); chain.push(step); }
          chain.reverse();
          const root = H.roots.find((r) => r[0] === chain[0]);
          out += `<ol class="path">`;
          out += `<li class="root muted">root ${esc(root ? root[1] : "")}</li>`;
          chain.forEach((step, index) => {
            let edgeLabel = "";
            if (index + 1 < chain.length) {
              const target = chain[index + 1];
              for (let e = heap.strongOffsets[step]; e < heap.strongOffsets[step + 1]; e++) if (heap.strongTargets[e] === target) { edgeLabel = label(heap.strongLabels[e]); break; }
            }
            out += `<li class="row step" data-node="${step}">${link(step)}${index + 1 < chain.length ? ` <code class="label">.${esc(edgeLabel)}</code> →` : ""}`;
            const weak = weakTo(step);
            for (const w of weak.slice(0, 5)) {
              out += `<div class="not-taken">also ${OWNERSHIP[heap.weakOwnerships[w]]} from ${link(heap.weakSources[w])} <code class="label">.${esc(label(heap.weakLabels[w]))}</code> <span class="muted">(${OWNERSHIP[heap.weakOwnerships[w]]}: not taken)</span></div>`;
            }
            out += `</li>`;
          });
          out += `</ol>`;
        }
        out += `</div>`;
        view.innerHTML = out;
        select(-1);
      }

      const DRAW = { summary: drawSummary, types: drawTypes, dominators: drawDominators, leaks: drawLeaks };

      // MARK: Addresses

      function route() {
        const parameters = new URLSearchParams(location.hash.slice(1));
        if (parameters.has("object")) {
          inspect(nodeOf(Number(parameters.get("object"))));
          show("inspector");
          return;
        }
        const view = parameters.get("view");
        show(VIEWS.includes(view) ? view : "summary");
        if (view === "leaks" && parameters.has("group")) {
          const more = $("#more-groups");
          while (more && !document.getElementById("group-" + parameters.get("group")) && +more.dataset.from < Math.min(+parameters.get("group"), H.leakGroups.length)) moreGroups(more);
          const article = document.getElementById("group-" + parameters.get("group"));
          if (article) article.scrollIntoView({ block: "start" });
        }
      }
      window.addEventListener("hashchange", route);

      // MARK: Clicks

      document.addEventListener("click", (event) => {
        const target = event.target;
        const toggle = target.closest(".toggle");
        if (toggle) {
          const row = toggle.closest(".row");
          if (row.classList.contains("type-row")) toggleType(row); else expand(row);
          return;
        }
        const moreReferencesButton = target.closest("button.more-references");
        if (moreReferencesButton) { moreReferences(moreReferencesButton); return; }
        const moreInstancesButton = target.closest("button.more-instances");
        if (moreInstancesButton) { moreInstances(moreInstancesButton.closest("details")); return; }
        const moreGroupsButton = target.closest("button.more-groups");
        if (moreGroupsButton) { moreGroups(moreGroupsButton.parentElement); return; }
        const more = target.closest(".tree-row.more");
        if (more) { showMore(more); return; }
        const typeRow = target.closest(".type-row");
        if (typeRow && !target.closest("a")) { toggleType(typeRow); return; }
        const row = target.closest("tr.row[data-href]");
        if (row && !target.closest("a")) location.hash = row.dataset.href.slice(1);
      });
      document.addEventListener("toggle", (event) => {
        const details = event.target;
        if (details.matches && details.matches("details[data-group]") && details.open) listInstances(details);
      }, true);

      // MARK: Search

      const search = $("#search");
      search.addEventListener("input", () => {
        typeState.filter = search.value.trim();
        typeState.shown = PAGE;
        if (current !== "types") location.hash = "view=types";
        if (drawn.types) drawTypes(); else show("types");
      });

      // MARK: Keys

      let selected = -1;
      function rows() { return Array.from($("#view-" + current).querySelectorAll(".row")).filter((row) => row.offsetParent !== null); }
      function select(index) {
        for (const row of document.querySelectorAll(".row.selected")) row.classList.remove("selected");
        selected = index;
        if (index < 0 || !current) return;
        const all = rows();
        if (!all.length) { selected = -1; return; }
        selected = Math.max(0, Math.min(index, all.length - 1));
        all[selected].classList.add("selected");
        all[selected].scrollIntoView({ block: "nearest" });
      }
      function selectedRow() { const all = rows(); return selected >= 0 && selected < all.length ? all[selected] : null; }
      document.addEventListener("keydown", (event) => {
        if (event.ctrlKey || event.metaKey || event.altKey) return;
        if (event.target === search) {
          if (event.key === "Escape" || event.key === "Enter") { search.blur(); select(0); event.preventDefault(); }
          return;
        }
        const key = event.key;
        if (key === "/") { event.preventDefault(); search.focus(); search.select(); return; }
        if (key >= "1" && key <= "5") { location.hash = "view=" + VIEWS[+key - 1]; return; }
        if (key === "?") { const keys = $("#keys"); keys.open = !keys.open; return; }
        if (key === "j" || key === "ArrowDown") { event.preventDefault(); select(selected + 1); return; }
        if (key === "k" || key === "ArrowUp") { event.preventDefault(); select(Math.max(selected - 1, 0)); return; }
        const row = selectedRow();
        if (!row) return;
        if (key === "Enter") {
          event.preventDefault();
          if (row.classList.contains("more")) showMore(row);
          else if (row.classList.contains("type-row")) toggleType(row);
          else if (row.dataset.node !== undefined) location.hash = "object=" + objectID(+row.dataset.node);
          else if (row.dataset.href) location.hash = row.dataset.href.slice(1);
        } else if ((key === "l" || key === "ArrowRight") && row.classList.contains("tree-row")) { expand(row, true); event.preventDefault(); }
        else if ((key === "h" || key === "ArrowLeft") && row.classList.contains("tree-row")) { expand(row, false); event.preventDefault(); }
      });

      status.hidden = true;
      route();
      requestAnimationFrame(() => {
        window.explorerFirstView = performance.now();
        performance.mark("explorer-first-view");
        document.body.dataset.ready = "true";
        // The indexes the first dominator expansion and the first inspector need, built while idle.
        (window.requestIdleCallback || setTimeout)(() => { dominatedRows(); referrerRows(); });
      });
    })();
    """#
}
