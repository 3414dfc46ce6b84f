-- vtlab schema: the order-summary service reads one order joined to its customer by primary key.
-- Idempotent: safe to run on every start.
CREATE TABLE IF NOT EXISTS customers (
    id          bigint      PRIMARY KEY,
    name        text        NOT NULL,
    email       text        NOT NULL,
    tier        text        NOT NULL,
    created_at  timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS orders (
    id           bigint      PRIMARY KEY,
    customer_id  bigint      NOT NULL REFERENCES customers (id),
    status       text        NOT NULL,
    total_cents  bigint      NOT NULL,
    currency     text        NOT NULL,
    item_count   integer     NOT NULL,
    created_at   timestamptz NOT NULL
);

-- PostgreSQL does not index foreign keys by itself.
CREATE INDEX IF NOT EXISTS orders_customer_id_idx ON orders (customer_id);

-- Orders created by the write workload take their ids from here, far above any seeded id, so the rig
-- can count exactly the rows a run inserted and remove them afterwards (postgres.WRITTEN_ID_START).
CREATE SEQUENCE IF NOT EXISTS written_order_ids START WITH 1000000000000;
