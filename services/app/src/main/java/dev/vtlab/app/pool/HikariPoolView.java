package dev.vtlab.app.pool;

import com.zaxxer.hikari.HikariDataSource;
import dev.vtlab.app.system.LabSettings.PoolImpl;

record HikariPoolView(HikariDataSource hikari) implements PoolView {

    private static final String VERSION = PoolView.mavenVersion(HikariDataSource.class, "com.zaxxer", "HikariCP");

    @Override
    public PoolImpl poolImpl() {
        return PoolImpl.HIKARI;
    }

    @Override
    public String implementation() {
        return "HikariCP";
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public int maximumPoolSize() {
        return hikari.getHikariConfigMXBean().getMaximumPoolSize();
    }

    @Override
    public int minimumIdle() {
        return hikari.getHikariConfigMXBean().getMinimumIdle();
    }

    @Override
    public long connectionTimeoutMs() {
        return hikari.getHikariConfigMXBean().getConnectionTimeout();
    }

    @Override
    public int totalConnections() {
        return hikari.getHikariPoolMXBean().getTotalConnections();
    }

    @Override
    public String name() {
        return hikari.getPoolName();
    }
}
