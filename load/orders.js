// vtlab's load: GET /api/order-summary/{id} with random seeded ids (or one of the other workloads:
// POST /api/orders, /api/offload/{id}, /api/fanout/{id}, /api/sleep, /api/cpu), closed or open model.
//
// One run covers ramp + warm-up + hold + cool-down. Each request is tagged with the phase in
// which it *started*, so the summary's hold sub-metrics count exactly the requests issued during
// the hold (requests crossing the hold's edges balance out at steady state). The hold is split
// in two halves (a, b) so the harness can check the throughput was steady.
import http from 'k6/http';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL;
const MODEL = __ENV.MODEL || 'closed';
const MAX_ID = Number(__ENV.MAX_ID);
const RAMP = Number(__ENV.RAMP_S);
const WARMUP = Number(__ENV.WARMUP_S);
const HOLD = Number(__ENV.HOLD_S);
const COOLDOWN = Number(__ENV.COOLDOWN_S || 3);
const VUS = Number(__ENV.VUS);
const RATE = Number(__ENV.RATE || 0);
const WORKLOAD = __ENV.WORKLOAD || 'order-summary';
const SLEEP_MS = Number(__ENV.SLEEP_MS || 0);
const CPU_WORK = Number(__ENV.CPU_WORK || 0);

// The load's shape, as the harness computed it (vtlab.shapes): stages of the ramp and warm-up, and of the
// hold and cool-down (one stage for a steady hold; a spike or a staircase otherwise).
const WARMUP_STAGES = JSON.parse(__ENV.WARMUP_STAGES);
const HOLD_STAGES = JSON.parse(__ENV.HOLD_STAGES);

const HOLD_START_MS = (RAMP + WARMUP) * 1000;
const HALF_MS = HOLD_START_MS + (HOLD * 1000) / 2;
const HOLD_END_MS = HOLD_START_MS + HOLD * 1000;

const MAX_CUSTOMER = Number(__ENV.MAX_CUSTOMER_ID || 1);
const EXPECTED_STATUS = WORKLOAD === 'write' ? 201 : 200;
// k6's own success (expected_response, http_req_failed, vtlab's series) is the same status the checks below
// count, not k6's default of any 2xx/3xx: a 204, a redirect or a 200 to a write is a failure here.
http.setResponseCallback(http.expectedStatuses(EXPECTED_STATUS));

const succeeded = new Counter('vtlab_ok');
// The hold's failed requests by status (0: no response at all, e.g. refused or timed out); the
// statuses the services answer with, and 'other' for anything else.
const failed = new Counter('vtlab_failed');
const FAILURE_STATUSES = ['0', '400', '404', '500', '502', '503', '504', 'other'];
// Every acknowledged write of the whole run, whatever its phase: the rig checks it against the rows
// the database really holds afterwards.
const created = new Counter('vtlab_created');

function closedModel() {
  return {
    orders: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [...WARMUP_STAGES, ...HOLD_STAGES],
      // A spike's step down lets the extra users finish the request they are in (up to its 60 s timeout):
      // k6 drops the samples of a request it interrupts, so the spike's slowest requests would vanish.
      gracefulRampDown: '60s',
      gracefulStop: '10s',
    },
  };
}

function holdScenario() {
  const common = { startTime: `${RAMP + WARMUP}s`, timeUnit: '1s', preAllocatedVUs: VUS, maxVUs: VUS * 2,
    gracefulStop: '10s' };
  if (HOLD_STAGES.length === 1) {
    return { executor: 'constant-arrival-rate', rate: RATE, duration: `${HOLD + COOLDOWN}s`, ...common };
  }
  return { executor: 'ramping-arrival-rate', startRate: HOLD_STAGES[0].target, stages: HOLD_STAGES, ...common };
}

function openModel() {
  // Two scenarios so that dropped iterations during the hold can be told apart from those of the
  // JIT-bound warm-up.
  return {
    warmup: {
      executor: 'ramping-arrival-rate',
      startRate: 1,
      timeUnit: '1s',
      preAllocatedVUs: VUS,
      maxVUs: VUS * 2,
      stages: WARMUP_STAGES,
      gracefulStop: '10s',
    },
    hold: holdScenario(),
  };
}

export const options = {
  discardResponseBodies: true,
  scenarios: MODEL === 'open' ? openModel() : closedModel(),
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'p(99.9)'],
  // Thresholds say whether a row is valid (no errors, generator kept up), not whether it was
  // fast. They also make k6 report the hold-phase sub-metrics the harness reads.
  thresholds: {
    'http_req_failed{phase:hold}': ['rate<0.01'],
    'http_req_duration{phase:hold,expected_response:true}': ['max>=0'],
    'http_req_duration{phase:hold}': ['max>=0'], // every response, failed ones too
    ...Object.fromEntries(FAILURE_STATUSES.map((status) => [`vtlab_failed{status:${status}}`, ['count>=0']])),
    'http_reqs{phase:hold}': ['count>=0'],
    'vtlab_ok{half:a}': ['count>=0'],
    'vtlab_ok{half:b}': ['count>=0'],
    'dropped_iterations': ['count>=0'],
    'vtlab_created': ['count>=0'],
    ...(MODEL === 'open' ? { 'dropped_iterations{scenario:hold}': ['count<1'] } : {}),
  },
};

function phaseAt(elapsedMs) {
  if (elapsedMs < HOLD_START_MS) return ['warmup', 'none'];
  if (elapsedMs < HALF_MS) return ['hold', 'a'];
  if (elapsedMs < HOLD_END_MS) return ['hold', 'b'];
  return ['cooldown', 'none'];
}

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
  const [phase, half] = phaseAt(exec.instance.currentTestRunDuration);
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

export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) };
}
