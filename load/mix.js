// `vtlab run --mix FILE` (and `--endpoint`, a mix of one entry): each iteration one request, its entry drawn by
// weight, its placeholders filled — {id} from the entry's ids (a range or a file's lines), {n} a counter of this k6
// run, {uuid}, {text:N} — and judged by the entry's own success statuses. vtlab runs it through custom.js like a
// user's own script. The entries come from vtlab.targets.requestmix, which checked them and fills a preflight's
// requests the same way.
import http from 'k6/http';
import exec from 'k6/execution';
import { SharedArray } from 'k6/data';

const BASE_URL = __ENV.BASE_URL;
const PLACEHOLDER = /\{(id|n|uuid|text:(\d{1,4}))\}/g;
const HAS_PLACEHOLDER = new RegExp(PLACEHOLDER.source); // not global: .test keeps no position between templates
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

// Everything an iteration needs is built here, once: an iteration allocates only its own request.
const MIX = JSON.parse(__ENV.VTLAB_MIX);
const ENTRIES = MIX.map((entry, index) => ({
  method: entry.method,
  path: entry.path,
  body: entry.body,
  pathFilled: HAS_PLACEHOLDER.test(entry.path),
  bodyFilled: entry.body !== null && HAS_PLACEHOLDER.test(entry.body),
  first: entry.ids ? entry.ids[0] : 1,
  span: entry.ids ? entry.ids[1] - entry.ids[0] + 1 : 1,
  fromFile: entry.idsFile
    ? new SharedArray(`ids-${index}`, () => open(entry.idsFile).split('\n').map((line) => line.trim())
      .filter((line) => line))
    : null,
  // `name` groups the requests (one metric series for every id); `entry` is what vtlab's series output keeps of
  // each request, so every entry's figures can be told apart
  params: {
    headers: entry.headers, tags: { name: entry.name, entry: entry.name }, timeout: '60s',
    responseCallback: http.expectedStatuses(...entry.success),
  },
}));
const TOTAL = MIX.reduce((sum, entry) => sum + entry.weight, 0);
// the running sums of the weights: entry i is drawn where a uniform draw falls below UPTO[i]
const UPTO = MIX.reduce((sums, entry) => [...sums, (sums.at(-1) || 0) + entry.weight], []);

export const options = { discardResponseBodies: true };

function pick() {
  if (ENTRIES.length === 1) return ENTRIES[0];
  const at = Math.random() * TOTAL;
  for (let i = 0; i < UPTO.length; i += 1) {
    if (at < UPTO[i]) return ENTRIES[i];
  }
  return ENTRIES[ENTRIES.length - 1];
}

function anyId(entry) {
  if (entry.fromFile) return entry.fromFile[Math.floor(Math.random() * entry.fromFile.length)];
  return String(entry.first + Math.floor(Math.random() * entry.span));
}

function uuid() {
  const hex = [];
  for (let i = 0; i < 32; i += 1) hex.push(Math.floor(Math.random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = (8 + Math.floor(Math.random() * 4)).toString(16);
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

function letters(length) {
  let text = '';
  for (let i = 0; i < length; i += 1) text += LETTERS[Math.floor(Math.random() * LETTERS.length)];
  return text;
}

function fill(template, id, inPath) {
  return template.replace(PLACEHOLDER, (match, name, length) => {
    if (name === 'id') return inPath ? encodeURIComponent(id) : id;
    if (name === 'n') return String(exec.scenario.iterationInTest);
    if (name === 'uuid') return uuid();
    return letters(Number(length));
  });
}

export default function () {
  const entry = pick();
  const id = entry.pathFilled || entry.bodyFilled ? anyId(entry) : '';
  const url = BASE_URL + (entry.pathFilled ? fill(entry.path, id, true) : entry.path);
  const body = entry.bodyFilled ? fill(entry.body, id, false) : entry.body;
  http.request(entry.method, url, body, entry.params);
}
