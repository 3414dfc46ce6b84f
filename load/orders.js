// vtlab's load: GET /api/order-summary/{id} with random seeded ids (or one of the other workloads:
// POST /api/orders, /api/offload/{id}, /api/fanout/{id}, /api/sleep, /api/cpu), closed or open model.
// The phases, scenarios and thresholds are the rig's (phases.js), shared with a user's script.
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter } from 'k6/metrics';
import * as phases from './phases.js';

const { FAILURE_STATUSES, counted, handleSummary, phaseNow, rigOptions } = phases;

export { handleSummary };

const BASE_URL = __ENV.BASE_URL;
const MAX_ID = Number(__ENV.MAX_ID);
const WORKLOAD = __ENV.WORKLOAD || 'order-summary';
const SLEEP_MS = Number(__ENV.SLEEP_MS || 0);
const CPU_WORK = Number(__ENV.CPU_WORK || 0);

const MAX_CUSTOMER = Number(__ENV.MAX_CUSTOMER_ID || 1);
const EXPECTED_STATUS = WORKLOAD === 'write' ? 201 : 200;
// k6's own success (expected_response, http_req_failed, vtlab's series) is the same status the checks below
// count, not k6's default of any 2xx/3xx: a 204, a redirect or a 200 to a write is a failure here.
http.setResponseCallback(http.expectedStatuses(EXPECTED_STATUS));

// Bound once, here and above: an imported name is looked up through the module's bindings at every use, and
// these run in every iteration (the load generator shares the machine with the service it measures).
const { get, post } = http;

// The hold's failed requests by status (phases.js's FAILURE_STATUSES). Its successes need no counter of their own:
// k6's `http_reqs` carries the phase, the half and whether the status was the expected one.
const failed = new Counter('vtlab_failed');
// Every acknowledged write of the whole run, whatever its phase: the rig checks it against the rows
// the database really holds afterwards.
const created = new Counter('vtlab_created');

export const options = {
  discardResponseBodies: true,
  // nothing here sets a cookie: k6 need not make each iteration a new cookie jar
  noCookiesReset: true,
  ...rigOptions({
    ...Object.fromEntries(FAILURE_STATUSES.map((status) => [`vtlab_failed{status:${status}}`, ['count>=0']])),
    'http_reqs{half:a,expected_response:true}': ['count>=0'],
    'http_reqs{half:b,expected_response:true}': ['count>=0'],
    'vtlab_created': ['count>=0'],
  }),
};

function target() {
  if (WORKLOAD === 'sleep') return `${BASE_URL}/api/sleep?ms=${SLEEP_MS}`;
  if (WORKLOAD === 'cpu') return `${BASE_URL}/api/cpu?work=${CPU_WORK}`;
  const id = 1 + Math.floor(Math.random() * MAX_ID);
  if (WORKLOAD === 'offload') return `${BASE_URL}/api/offload/${id}`;
  if (WORKLOAD === 'fanout') return `${BASE_URL}/api/fanout/${id}`;
  return `${BASE_URL}/api/order-summary/${id}`;
}

function newOrder() {
  return JSON.stringify({
    customerId: 1 + Math.floor(Math.random() * MAX_CUSTOMER),
    totalCents: Math.floor(Math.random() * 100000),
    currency: 'EUR',
    itemCount: 1 + Math.floor(Math.random() * 9),
  });
}

// The request's tags are the VU's, set when its phase changes (each VU runs its own copy of this module): k6 would
// read a `tags` parameter in every request. A fixed `name` keeps a million ids from becoming a million series.
let tagged = null;

function tag(now) {
  const tags = exec.vu.metrics.tags;
  tags.name = WORKLOAD;
  tags.phase = now.phase;
  tags.half = now.half;
  tagged = now;
}

const PARAMS = { timeout: '60s' };
const WRITE_PARAMS = { ...PARAMS, headers: { 'Content-Type': 'application/json' } };

export default function () {
  const now = phaseNow();
  if (now !== tagged) tag(now);
  counted(now, request, now);
}

function request(now) {
  const res = WORKLOAD === 'write' ? post(`${BASE_URL}/api/orders`, newOrder(), WRITE_PARAMS) : get(target(), PARAMS);
  if (res.status === EXPECTED_STATUS) {
    if (WORKLOAD === 'write') created.add(1);
  } else if (now.phase === 'hold') {
    const status = String(res.status);
    failed.add(1, { status: FAILURE_STATUSES.includes(status) ? status : 'other' });
  }
}
