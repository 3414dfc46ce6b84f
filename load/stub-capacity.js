// The stub's capacity: constant users hitting GET /downstream/{id} as fast as it answers.
// Used by `vtlab bench-stub`, which runs it once to warm the stub's JIT and once to measure.
import http from 'k6/http';

export const options = {
  discardResponseBodies: true,
  scenarios: {
    stub: { executor: 'constant-vus', vus: Number(__ENV.VUS), duration: `${__ENV.SECONDS}s`, gracefulStop: '5s' },
  },
  summaryTrendStats: ['med', 'p(99)', 'max'],
};

export default function () {
  const id = 1 + Math.floor(Math.random() * 1000000);
  http.get(`${__ENV.BASE_URL}/downstream/${id}`, { tags: { name: 'downstream' }, timeout: '30s' });
}

export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) };
}
