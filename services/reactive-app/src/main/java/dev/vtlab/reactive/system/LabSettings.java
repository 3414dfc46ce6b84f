package dev.vtlab.reactive.system;

import dev.vtlab.common.Env;
import dev.vtlab.common.InvalidSettingException;
import dev.vtlab.common.ServiceSettings;

import org.springframework.core.env.PropertyResolver;

import static dev.vtlab.common.Env.intBetween;

/**
 * Every environment variable the reactive app reads, parsed and validated in one place: those it shares with
 * the app in {@link ServiceSettings} (names, defaults and limits written once, in module common, so the rig
 * can hand both services one environment), and the one only the twin has. {@link SettingsEnvironmentPostProcessor}
 * runs {@link #from} before Spring converts anything derived from these, so a bad value fails naming the variable.
 */
public record LabSettings(ServiceSettings service, int downstreamMaxConnections) {

    public static LabSettings from(PropertyResolver env) {
        ServiceSettings service = ServiceSettings.from(env);
        // The app takes any jdbc:postgresql: URL; R2DBC has no form for JDBC's host-less or multi-host ones.
        if (!JdbcToR2dbcUrl.accepts(service.dbUrl())) {
            throw new InvalidSettingException("DB_URL", Env.JDBC_URL_EXPECTATION, service.dbUrl());
        }
        return new LabSettings(service, intBetween(env, "DOWNSTREAM_MAX_CONNECTIONS", 10_000, 1, 1_000_000));
    }

    /** DB_URL in the R2DBC form the driver understands; validated as JDBC form by {@link #from}. */
    public String r2dbcUrl() {
        return JdbcToR2dbcUrl.convert(service.dbUrl());
    }

    /** Keeps the password out of logs and failure reports ({@link ServiceSettings#toString()} leaves it out). */
    @Override
    public String toString() {
        return "LabSettings[%s, downstreamMaxConnections=%d]".formatted(service, downstreamMaxConnections);
    }
}
