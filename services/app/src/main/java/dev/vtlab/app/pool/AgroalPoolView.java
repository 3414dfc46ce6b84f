package dev.vtlab.app.pool;

import dev.vtlab.app.system.LabSettings.PoolImpl;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration;

record AgroalPoolView(AgroalDataSource agroal) implements PoolView {

    private static final String VERSION = PoolView.mavenVersion(AgroalDataSource.class, "io.agroal", "agroal-api");

    @Override
    public PoolImpl poolImpl() {
        return PoolImpl.AGROAL;
    }

    @Override
    public String implementation() {
        return "Agroal";
    }

    @Override
    public String version() {
        return VERSION;
    }

    private AgroalConnectionPoolConfiguration config() {
        return agroal.getConfiguration().connectionPoolConfiguration();
    }

    @Override
    public int maximumPoolSize() {
        return config().maxSize();
    }

    @Override
    public int minimumIdle() {
        return config().minSize();
    }

    @Override
    public long connectionTimeoutMs() {
        return config().acquisitionTimeout().toMillis();
    }

    @Override
    public int totalConnections() {
        return (int) (agroal.getMetrics().activeCount() + agroal.getMetrics().availableCount());
    }

    @Override
    public String name() {
        return AgroalPoolConfiguration.POOL_NAME;
    }
}
