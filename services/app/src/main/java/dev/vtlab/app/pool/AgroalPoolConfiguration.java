package dev.vtlab.app.pool;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;

import javax.sql.DataSource;

import dev.vtlab.app.system.LabSettings;
import dev.vtlab.app.system.LabSettings.PoolImpl;
import dev.vtlab.common.ServiceSettings;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceMetrics;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * POOL_IMPL=agroal: an Agroal pool sized and timed exactly like the Hikari one (fixed size DB_POOL_MAX,
 * DB_POOL_TIMEOUT_MS to wait for a connection). Defining the DataSource makes Boot's Hikari set-up back off.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(AgroalPoolConfiguration.AgroalChosen.class)
class AgroalPoolConfiguration {

    static final String POOL_NAME = "vtlab";

    @Bean
    DataSource dataSource(ServiceSettings settings) throws SQLException {
        int size = settings.dbPoolMax();
        AgroalDataSourceConfigurationSupplier config = new AgroalDataSourceConfigurationSupplier()
                // active and awaiting counts are only kept with metrics on; they are the rig's pool gauges
                .metricsEnabled(true)
                .connectionPoolConfiguration(pool -> pool
                        .maxSize(size)
                        .minSize(size)
                        .initialSize(size)
                        .acquisitionTimeout(settings.dbPoolTimeout())
                        .connectionFactoryConfiguration(factory -> factory
                                .jdbcUrl(settings.dbUrl())
                                .principal(new NamePrincipal(settings.dbUser()))
                                .credential(new SimplePassword(settings.dbPassword()))));
        return new TimeoutTranslatingDataSource(AgroalDataSource.from(config));
    }

    /** The same meters for Agroal that Hikari registers for itself (hikaricp.connections.*). */
    @Bean
    MeterBinder agroalMeters(DataSource dataSource) throws SQLException {
        AgroalDataSourceMetrics metrics = dataSource.unwrap(AgroalDataSource.class).getMetrics();
        int max = dataSource.unwrap(AgroalDataSource.class).getConfiguration().connectionPoolConfiguration().maxSize();
        return registry -> {
            Gauge.builder("agroal.connections.active", metrics, AgroalDataSourceMetrics::activeCount)
                    .description("Connections in use").tag("pool", POOL_NAME).register(registry);
            Gauge.builder("agroal.connections.pending", metrics, AgroalDataSourceMetrics::awaitingCount)
                    .description("Threads waiting for a connection").tag("pool", POOL_NAME).register(registry);
            Gauge.builder("agroal.connections.max", () -> max)
                    .description("Maximum pool size").tag("pool", POOL_NAME).register(registry);
            // The pool's own exact accounting: a 2 Hz sample of the gauges above rarely sees a borrow that
            // lasts a millisecond; these count every one. Agroal keeps no in-use time (Hikari's usage timer),
            // so the mean connections out stays unknown; its high-water mark stands in for the peak.
            FunctionCounter.builder("agroal.connections.acquire", metrics, AgroalDataSourceMetrics::acquireCount)
                    .description("Connections handed out").tag("pool", POOL_NAME).register(registry);
            FunctionCounter.builder("agroal.connections.blocking", metrics,
                            m -> m.blockingTimeTotal().toNanos() / 1e9)
                    .baseUnit("seconds").description("Time threads spent acquiring a connection, all acquires")
                    .tag("pool", POOL_NAME).register(registry);
            Gauge.builder("agroal.connections.max.used", metrics, AgroalDataSourceMetrics::maxUsedCount)
                    .description("Most connections in use at once since the pool started")
                    .tag("pool", POOL_NAME).register(registry);
        };
    }

    /**
     * Agroal reports a timed-out borrow as a plain SQLException("Sorry, acquisition timeout!"); Hikari as a
     * SQLTransientConnectionException, which the API answers with 503. Translate, so both pools are judged
     * by the same rule; close() lets the context shut the pool down.
     */
    static final class TimeoutTranslatingDataSource extends DelegatingDataSource implements AutoCloseable {

        private final AgroalDataSource agroal;
        private final Duration timeout;

        TimeoutTranslatingDataSource(AgroalDataSource agroal) {
            super(agroal);
            this.agroal = agroal;
            this.timeout = agroal.getConfiguration().connectionPoolConfiguration().acquisitionTimeout();
        }

        @Override
        public Connection getConnection() throws SQLException {
            try {
                return super.getConnection();
            }
            catch (SQLException ex) {
                if (ex.getMessage() != null && ex.getMessage().contains("acquisition timeout")) {
                    throw new SQLTransientConnectionException(
                            "No connection within " + timeout.toMillis() + " ms", "08001", ex);
                }
                throw ex;
            }
        }

        @Override
        public void close() {
            agroal.close();
        }
    }

    /**
     * POOL_IMPL as LabSettings parses it (trimmed, any case), not the raw property: @ConditionalOnProperty compared
     * the raw value, so POOL_IMPL=' agroal' passed validation and Hikari ran under a row labelled agroal.
     */
    static final class AgroalChosen implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return LabSettings.from(context.getEnvironment()).poolImpl() == PoolImpl.AGROAL;
        }
    }
}
