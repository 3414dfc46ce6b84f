package dev.vtlab.app.pool;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.vtlab.app.AppApplication;
import dev.vtlab.testsupport.LabInfrastructure;
import io.agroal.api.AgroalDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * POOL_IMPL is read as LabSettings validates it, trimmed and in any case: the pool that runs is the one the row is
 * labelled with. A command-line argument keeps the spaces (and outranks a real environment variable).
 */
@ExtendWith(LabInfrastructure.class)
class PoolChoiceTest {

    @Test
    void agroalWithSpacesAndCapitalsRunsAgroal() throws Exception {
        try (ConfigurableApplicationContext app = started(" Agroal ")) {
            DataSource dataSource = app.getBean(DataSource.class);
            assertThat(dataSource.isWrapperFor(AgroalDataSource.class)).isTrue();
            assertThat(dataSource.isWrapperFor(HikariDataSource.class)).isFalse();
        }
    }

    @Test
    void hikariRunsHikari() throws Exception {
        try (ConfigurableApplicationContext app = started("hikari")) {
            DataSource dataSource = app.getBean(DataSource.class);
            assertThat(dataSource.isWrapperFor(HikariDataSource.class)).isTrue();
            assertThat(dataSource.isWrapperFor(AgroalDataSource.class)).isFalse();
        }
    }

    private static ConfigurableApplicationContext started(String poolImpl) {
        // Two connections: the warm-up fills the pool before the context is returned.
        return new SpringApplicationBuilder(AppApplication.class).logStartupInfo(false)
                .run("--POOL_IMPL=" + poolImpl, "--DB_POOL_MAX=2", "--server.port=0");
    }
}
