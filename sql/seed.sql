-- vtlab seed: 100,000 customers and 1,000,000 orders, generated on the server.
-- Re-runnable: it empties both tables first, so a reseed yields exactly the same rows.
-- Sizes can be overridden with psql variables (the tests use smaller ones):
--   psql -v customers=1000 -v orders=10000 -f seed.sql
\set ON_ERROR_STOP on
\if :{?customers}
\else
\set customers 100000
\endif
\if :{?orders}
\else
\set orders 1000000
\endif

BEGIN;
TRUNCATE orders, customers;
-- The orders' foreign key and customer index made once the rows are in, not kept up row by row (the key's trigger
-- looking up a customer a million times, the index grown one random key at a time): the whole seed in 3.1 and 3.1 s
-- against 8.2 and 9.0 s, interleaved on a 2-core AMD EPYC (2026-12-07), the same rows, key and index. On a new
-- machine the seed runs beside the k6 build, whose CPU it takes. One transaction: nothing sees the table without them.
ALTER TABLE orders DROP CONSTRAINT orders_customer_id_fkey;
DROP INDEX orders_customer_id_idx;

INSERT INTO customers (id, name, email, tier, created_at)
SELECT g,
       'Customer ' || g,
       'customer' || g || '@example.test',
       (ARRAY['bronze', 'silver', 'gold', 'platinum'])[1 + g % 4],
       timestamptz '2024-01-01 00:00:00+00' + (g % 730) * interval '1 day'
FROM generate_series(1::bigint, :customers) AS g;

-- Deterministic pseudo-random values (no random()) so every seed is identical.
INSERT INTO orders (id, customer_id, status, total_cents, currency, item_count, created_at)
SELECT g,
       1 + (g * 7919) % :customers,
       (ARRAY['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'])[1 + g % 5],
       500 + (g * 104729) % 250000,
       'EUR',
       1 + g % 9,
       timestamptz '2025-01-01 00:00:00+00' + (g % 525600) * interval '1 minute'
FROM generate_series(1::bigint, :orders) AS g;
ALTER TABLE orders ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers (id);
CREATE INDEX orders_customer_id_idx ON orders (customer_id);
COMMIT;

-- Vacuumed and frozen now, not by autovacuum during the first rows: every row reads all-visible pages with their
-- hint bits set (a first read of a fresh tuple sets them and dirties its page: 10,962 pages a fresh clone's rows
-- dirtied this way were written by a timed checkpoint while they were measured).
VACUUM (FREEZE, ANALYZE) customers;
VACUUM (FREEZE, ANALYZE) orders;
