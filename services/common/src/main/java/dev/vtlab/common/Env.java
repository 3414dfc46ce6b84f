package dev.vtlab.common;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;

import org.springframework.core.env.PropertyResolver;

/**
 * Reading one environment variable each: its value, its default when unset, or an
 * {@link InvalidSettingException} that names the variable and what it accepts.
 */
public final class Env {

    /** Upper bound for every timeout: anything longer is a typo, not an experiment. */
    public static final int MAX_TIMEOUT_MS = 3_600_000;

    /** What a database URL variable must hold, in the message that refuses one. */
    public static final String JDBC_URL_EXPECTATION = "a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)";

    private Env() {
    }

    public static boolean bool(PropertyResolver env, String name, boolean fallback) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidSettingException(name, "true or false", raw);
        };
    }

    public static int intBetween(PropertyResolver env, String name, int fallback, int min, int max) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        String expectation = max == Integer.MAX_VALUE
                ? "an integer >= " + min
                : "an integer between " + min + " and " + max;
        try {
            int value = Integer.parseInt(raw.trim());
            if (value >= min && value <= max) {
                return value;
            }
        }
        catch (NumberFormatException ex) {
            // fall through to the message below
        }
        throw new InvalidSettingException(name, expectation, raw);
    }

    /** A port, or null when the variable is unset (the feature it enables stays off). */
    public static Integer optionalPort(PropertyResolver env, String name) {
        return env.getProperty(name) == null ? null : intBetween(env, name, 0, 0, 65_535);
    }

    public static Duration millis(PropertyResolver env, String name, int fallback, int min) {
        return Duration.ofMillis(intBetween(env, name, fallback, min, MAX_TIMEOUT_MS));
    }

    /** The name a variable's value uses for an enum constant: PINNED_CONTROL is "pinned-control". */
    public static String valueName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static <E extends Enum<E>> E oneOf(PropertyResolver env, String name, E fallback) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        E[] all = fallback.getDeclaringClass().getEnumConstants();
        for (E candidate : all) {
            if (valueName(candidate).equalsIgnoreCase(raw.trim())) {
                return candidate;
            }
        }
        StringBuilder accepted = new StringBuilder();
        for (int i = 0; i < all.length; i++) {
            accepted.append(i == 0 ? "" : (i == all.length - 1 ? " or " : ", ")).append(valueName(all[i]));
        }
        throw new InvalidSettingException(name, accepted.toString(), raw);
    }

    public static String nonBlank(PropertyResolver env, String name, String fallback) {
        String raw = env.getProperty(name);
        if (raw == null) {
            return fallback;
        }
        if (raw.isBlank()) {
            throw new InvalidSettingException(name, "a non-empty value", raw);
        }
        return raw.trim();
    }

    public static String jdbcUrl(PropertyResolver env, String name, String fallback) {
        String value = nonBlank(env, name, fallback);
        if (!value.startsWith("jdbc:postgresql:")) {
            throw new InvalidSettingException(name, JDBC_URL_EXPECTATION, value);
        }
        return value;
    }

    /** An absolute http(s) URL without a trailing slash. */
    public static URI httpUrl(PropertyResolver env, String name, String fallback) {
        String value = nonBlank(env, name, fallback);
        String expectation = "an absolute http:// or https:// URL such as http://127.0.0.1:8081";
        try {
            URI uri = new URI(value.endsWith("/") ? value.substring(0, value.length() - 1) : value);
            boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            if (!http || uri.getHost() == null) {
                throw new InvalidSettingException(name, expectation, value);
            }
            return uri;
        }
        catch (URISyntaxException ex) {
            throw new InvalidSettingException(name, expectation, value);
        }
    }
}
