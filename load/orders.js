// vtlab's load: GET /api/order-summary/{id} with random seeded ids (or one of the other workloads:
// POST /api/orders, /api/offload/{id}, /api/fanout/{id}, /api/sleep, /api/cpu), closed or open model.
// The phases, scenarios and thresholds are the rig's (phases.js), shared with a user's script.
import http from 'k6/http';
import { Counter } from 'k6/metrics';
import { FAILURE_STATUSES, counted, handleSummary, phaseNow, rigOptions } from './phases.js';

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

const succeeded = new Counter('vtlab_ok');
// The hold's failed requests by status (phases.js's FAILURE_STATUSES).
const failed = new Counter('vtlab_failed');
// Every acknowledged write of the whole run, whatever its phase: the rig checks it against the rows
// the database really holds afterwards.
const created = new Counter('vtlab_created');

export const options = {
  discardResponseBodies: true,
  ...rigOptions({
    ...Object.fromEntries(FAILURE_STATUSES.map((status) => [`vtlab_failed{status:${status}}`, ['count>=0']])),
    'vtlab_ok{half:a}': ['count>=0'],
    'vtlab_ok{half:b}': ['count>=0'],
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

export default function () {
  const [phase, half] = phaseNow();
  counted(phase, () => request(phase, half));
}

function request(phase, half) {
  // A fixed `name` keeps a million ids from becoming a million metric series.
  const params = { tags: { name: WORKLOAD, phase, half }, timeout: '60s' };
  const res = WORKLOAD === 'write'
    ? http.post(`${BASE_URL}/api/orders`, newOrder(), { ...params, headers: { 'Content-Type': 'application/json' } })
    : http.get(target(), params);
  if (res.status === EXPECTED_STATUS) {
    succeeded.add(1, { phase, half });
    if (WORKLOAD === 'write') created.add(1);
  } else if (phase === 'hold') {
    const status = String(res.status);
    failed.add(1, { status: FAILURE_STATUSES.includes(status) ? status : 'other' });
  }
}
