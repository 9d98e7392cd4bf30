// weir web UI: polls the REST API of this process and draws the job.
// No library, nothing fetched from elsewhere.
'use strict';

const REFRESH_MS = 1000;
let jobId = null;

function el(tag, attrs, text) {
  const ns = ['svg', 'g', 'rect', 'text', 'path', 'defs', 'marker', 'title'].includes(tag)
    ? 'http://www.w3.org/2000/svg' : null;
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function fmtWm(v) {
  if (v === null || v === undefined) return 'none yet';
  if (v === 'end') return 'end of input';
  return new Date(v).toISOString().replace('T', ' ').replace('Z', '');
}

function fmtRate(v) {
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M/s';
  if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k/s';
  return Math.round(v) + '/s';
}

function fmtBytes(n) {
  if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MiB';
  if (n >= 1 << 10) return (n / (1 << 10)).toFixed(1) + ' KiB';
  return n + ' B';
}

function bpLevel(msPerSec) {
  const r = msPerSec / 1000;
  return r <= 0.10 ? 'ok' : r <= 0.5 ? 'low' : 'high';
}

async function get(path) {
  const r = await fetch(path, { cache: 'no-store' });
  if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
  return r.json();
}

// Columns by longest path from a source, rows by order within a column.
function layout(plan) {
  const depth = {};
  const byId = {};
  for (const n of plan.nodes) byId[n.id] = n;
  const d = (id, seen) => {
    if (depth[id] !== undefined) return depth[id];
    if (seen.has(id)) return 0;
    seen.add(id);
    const ins = byId[id].inputs || [];
    const v = ins.length ? 1 + Math.max(...ins.map(i => d(i.id, seen))) : 0;
    depth[id] = v;
    return v;
  };
  for (const n of plan.nodes) d(n.id, new Set());
  const cols = {};
  const pos = {};
  for (const n of plan.nodes) {
    const c = depth[n.id];
    cols[c] = (cols[c] || 0) + 1;
    pos[n.id] = { col: c, row: cols[c] - 1 };
  }
  return pos;
}

function drawGraph(job) {
  const svg = document.getElementById('graph');
  const W = 250, H = 104, GX = 90, GY = 30;
  const pos = layout(job.plan);
  let maxCol = 0, maxRow = 0;
  for (const p of Object.values(pos)) { maxCol = Math.max(maxCol, p.col); maxRow = Math.max(maxRow, p.row); }
  svg.setAttribute('viewBox', `0 0 ${(maxCol + 1) * (W + GX)} ${(maxRow + 1) * (H + GY) + 10}`);
  svg.setAttribute('height', (maxRow + 1) * (H + GY) + 10);
  svg.replaceChildren();
  const defs = el('defs');
  const m = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8,
    markerHeight: 8, orient: 'auto' });
  m.appendChild(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#789' }));
  defs.appendChild(m);
  svg.appendChild(defs);
  const xy = id => ({ x: pos[id].col * (W + GX) + 10, y: pos[id].row * (H + GY) + 10 });
  for (const n of job.plan.nodes) {
    for (const i of n.inputs || []) {
      const a = xy(i.id), b = xy(n.id);
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
      svg.appendChild(el('path', { class: 'edge', 'data-from': i.id, 'data-to': n.id,
        d: `M${x1},${y1} C${x1 + GX / 2},${y1} ${x2 - GX / 2},${y2} ${x2},${y2}` }));
      svg.appendChild(el('text', { class: 'edge-label', x: (x1 + x2) / 2 - 20, y: (y1 + y2) / 2 - 4 },
        i.ship_strategy));
    }
  }
  for (const v of job.vertices) {
    const p = xy(v.id);
    const m = v.metrics;
    const level = bpLevel(m['accumulated-backpressured-time']);
    const g = el('g', { class: 'vertex', 'data-id': v.id, 'data-name': v.name,
      'data-parallelism': v.parallelism, 'data-read-records': m['read-records'],
      'data-write-records': m['write-records'], 'data-late-records': m['late-records'],
      'data-backpressure': level, transform: `translate(${p.x},${p.y})` });
    g.appendChild(el('title', {}, v.operators.join(' -> ')));
    g.appendChild(el('rect', { width: W, height: H, class: 'bp-' + level }));
    const lines = [
      [v.name + '  ×' + v.parallelism, 'title'],
      [`in ${m['read-records']} (${fmtRate(m['read-records-per-second'])})  ` +
        `out ${m['write-records']} (${fmtRate(m['write-records-per-second'])})`, 'rates'],
      [`busy ${Math.round(m['accumulated-busy-time'] / 10)}%  backpressured ` +
        `${Math.round(m['accumulated-backpressured-time'] / 10)}%`, 'busy'],
      ['watermark ' + fmtWm(m['current-output-watermark']), 'wm'],
      ['late rows ' + m['late-records'], 'late'],
    ];
    lines.forEach(([t, c], k) => g.appendChild(el('text', { x: 8, y: 18 + k * 19, class: c }, t)));
    svg.appendChild(g);
  }
}

function drawWatermarks(job, wms) {
  const body = document.querySelector('#watermarks tbody');
  const splits = document.querySelector('#splits tbody');
  body.replaceChildren();
  splits.replaceChildren();
  const late = {};
  for (const v of job.vertices) late[v.id] = v.metrics['late-records'];
  for (const v of wms.vertices) {
    for (const s of v.subtasks) {
      const h = s['held-by'];
      const tr = el('tr', { 'data-vertex': v.id, 'data-subtask': s.subtask });
      tr.appendChild(el('td', {}, v.name));
      tr.appendChild(el('td', {}, String(s.subtask)));
      tr.appendChild(el('td', {}, s.splits ? '' : fmtWm(s.currentInputWatermark)));
      tr.appendChild(el('td', {}, fmtWm(s.currentOutputWatermark)));
      tr.appendChild(el('td', {}, String(late[v.id])));
      tr.appendChild(el('td', { class: 'held' }, h.held && h.text ? h.text : ''));
      body.appendChild(tr);
      for (const sp of s.splits || []) {
        const r = el('tr', { 'data-split': sp.id, 'data-status': sp.status });
        r.appendChild(el('td', {}, v.name));
        r.appendChild(el('td', {}, String(s.subtask)));
        r.appendChild(el('td', {}, sp.id));
        r.appendChild(el('td', {}, sp.status));
        r.appendChild(el('td', {}, fmtWm(sp.watermark)));
        r.appendChild(el('td', {}, String(sp.records)));
        r.appendChild(el('td', {}, (sp['silent-ms'] / 1000).toFixed(1) + ' s ago'));
        splits.appendChild(r);
      }
    }
  }
}

function drawCheckpoints(c) {
  const counts = c.counts;
  document.getElementById('ckpt-counts').textContent = c.enabled
    ? `completed ${counts.completed}, failed ${counts.failed}, in progress ${counts.in_progress}`
    : 'checkpoints are off (execution.checkpointing.interval is not set)';
  const body = document.querySelector('#checkpoints tbody');
  body.replaceChildren();
  for (const h of c.history) {
    const tr = el('tr', { 'data-id': h.id });
    tr.appendChild(el('td', {}, String(h.id)));
    tr.appendChild(el('td', {}, new Date(h.trigger_timestamp).toISOString()));
    tr.appendChild(el('td', {}, h.end_to_end_duration + ' ms'));
    tr.appendChild(el('td', {}, fmtBytes(h.state_size)));
    tr.appendChild(el('td', {}, fmtBytes(h.checkpointed_size)));
    body.appendChild(tr);
  }
}

async function refresh() {
  try {
    if (!jobId) jobId = (await get('/jobs/overview')).jobs[0].jid;
    const [job, wms, ck, ex] = await Promise.all([get('/jobs/' + jobId),
      get('/jobs/' + jobId + '/watermarks'), get('/jobs/' + jobId + '/checkpoints'),
      get('/jobs/' + jobId + '/exceptions')]);
    document.getElementById('job-name').textContent = job.name;
    document.getElementById('job-state').textContent = job.state;
    document.getElementById('job-facts').textContent =
      `${job.tasks.total} subtasks, running ${(job.duration / 1000).toFixed(0)} s`;
    drawGraph(job);
    drawWatermarks(job, wms);
    drawCheckpoints(ck);
    const exs = document.getElementById('exception-section');
    exs.hidden = !ex['root-exception'];
    document.getElementById('exception').textContent = ex['root-exception'] || '';
    document.getElementById('updated').textContent = 'updated ' + new Date().toISOString();
    document.body.dataset.loaded = 'true';
  } catch (e) {
    document.getElementById('updated').textContent = 'not reachable: ' + e.message;
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
