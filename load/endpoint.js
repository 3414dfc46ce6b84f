// `vtlab run --endpoint 'GET /api/things/{id}' --ids 1-1000` (or --ids-file): each iteration one request to the
// endpoint, {id} drawn at random from the range or the file's lines. vtlab runs it through custom.js like a
// user's own script: this is the script a user would otherwise write.
import http from 'k6/http';
import { SharedArray } from 'k6/data';

const BASE_URL = __ENV.BASE_URL;
const METHOD = __ENV.ENDPOINT_METHOD;
const PATH = __ENV.ENDPOINT_PATH;
const FIRST = Number(__ENV.IDS_FROM || 1);
const LAST = Number(__ENV.IDS_TO || 1);
// --header: sent on every request (a value may be a secret: it lives here, in k6's environment, only)
const HEADERS = __ENV.ENDPOINT_HEADERS ? JSON.parse(__ENV.ENDPOINT_HEADERS) : undefined;
const FROM_FILE = __ENV.IDS_FILE
  ? new SharedArray('ids', () => open(__ENV.IDS_FILE).split('\n').map((line) => line.trim()).filter((line) => line))
  : null;

export const options = { discardResponseBodies: true };

function anyId() {
  if (FROM_FILE) return FROM_FILE[Math.floor(Math.random() * FROM_FILE.length)];
  return String(FIRST + Math.floor(Math.random() * (LAST - FIRST + 1)));
}

export default function () {
  const url = BASE_URL + PATH.replaceAll('{id}', encodeURIComponent(anyId()));
  // one metric name for every id: a million ids must not become a million series
  http.request(METHOD, url, null, { headers: HEADERS, tags: { name: `${METHOD} ${PATH}` }, timeout: '60s' });
}
