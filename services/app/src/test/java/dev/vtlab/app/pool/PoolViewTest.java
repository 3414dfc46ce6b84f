package dev.vtlab.app.pool;

import com.zaxxer.hikari.HikariDataSource;
import dev.vtlab.app.system.LabSettings.PoolImpl;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** No database needed: an unstarted Hikari pool opens no connection. */
class PoolViewTest {

    @Test
    void aDataSourceOfTheOtherPoolStopsTheStart() {
        try (HikariDataSource hikari = new HikariDataSource()) {
            assertThatThrownBy(() -> PoolView.checked(hikari, PoolImpl.AGROAL))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("POOL_IMPL is agroal but the DataSource is HikariCP's");
        }
    }
}
