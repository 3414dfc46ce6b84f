package dev.vtlab.testsupport;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The service tests (app, reactive-app) run against a real, seeded PostgreSQL and a real stub, both provided by the harness
 * (`./vtlab test`). Without them the tests must fail loudly: silently skipping would make a broken
 * setup look green, and falling back to defaults would hit whatever happens to listen there.
 */
public final class LabInfrastructure implements BeforeAllCallback {

    private static final String HOW = " Run the tests via `./vtlab test`, which starts PostgreSQL and the stub "
            + "and sets DB_URL, DB_USER, DB_PASSWORD, STUB_URL and STUB_DELAY_MS.";

    /** Below this the timing-based tests (held vs released, 504, fan-out) cannot tell the phases apart. */
    private static final int MIN_STUB_DELAY_MS = 100;

    @Override
    public void beforeAll(ExtensionContext context) {
        require("DB_URL");
        require("STUB_URL");
        stubDelayMs();
    }

    /** The delay the running stub was started with. */
    public static int stubDelayMs() {
        String raw = require("STUB_DELAY_MS");
        try {
            int delay = Integer.parseInt(raw.trim());
            if (delay >= MIN_STUB_DELAY_MS) {
                return delay;
            }
        }
        catch (NumberFormatException ex) {
            // fall through
        }
        throw new IllegalStateException("STUB_DELAY_MS must be an integer >= " + MIN_STUB_DELAY_MS
                + " (the delay the stub was started with), got '" + raw + "'." + HOW);
    }

    private static String require(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("Environment variable " + name + " is not set." + HOW);
        }
        return value;
    }
}
