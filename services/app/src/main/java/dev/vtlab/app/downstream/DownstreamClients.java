package dev.vtlab.app.downstream;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.vtlab.app.system.LabSettings;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.pool.PoolStats;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.transport.HttpDestination;
import reactor.netty.resources.ConnectionPoolMetrics;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.JdkClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.JettyClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.ReactorClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * The client under RestClient, as Spring Boot builds it for the name in HTTP_CLIENT
 * (spring.http.clients.imperative.factory), with two changes only: its pool sized when CLIENT_POOL asks, and the pool
 * handed to {@link DownstreamPool} so that its limits and its counts are read from the live objects. Everything else
 * (timeouts, redirects, the JDK client's virtual-thread executor) is Boot's.
 */
@Configuration(proxyBeanMethods = false)
public class DownstreamClients {

    /** Where the pool names its route to the stub (Reactor Netty's pool name in its metrics). */
    static final String POOL_NAME = "downstream";

    @Bean
    DownstreamPool downstreamPool(LabSettings settings) {
        // the customizer of the chosen client replaces the source once the client is built
        return DownstreamPool.unbounded(LabSettings.valueName(settings.httpClient()));
    }

    /**
     * The HTTP version is the row's (DOWNSTREAM_HTTP), never the JDK client's default: that is HTTP/2, offered by an
     * h2c upgrade on every new connection, which the stub (HTTP/1.1 and h2c) would accept.
     */
    @Bean
    ClientHttpRequestFactoryBuilderCustomizer<JdkClientHttpRequestFactoryBuilder> downstreamHttpVersion(
            LabSettings settings) {
        HttpClient.Version version = settings.downstreamHttp().version();
        return builder -> builder.withHttpClientCustomizer(client -> client.version(version));
    }

    /**
     * The downstream's request factory: Spring Boot's builder for HTTP_CLIENT (with its customizers and settings), and
     * for a client with a pool that one pool, sized where CLIENT_POOL asks and handed to {@link DownstreamPool}. Only
     * this build gets it: Boot builds other factories from the same builder (RestClient.Builder's own), whose pools
     * would otherwise be the ones read.
     */
    @Bean
    ClientHttpRequestFactory downstreamRequestFactory(ClientHttpRequestFactoryBuilder<?> boot,
            HttpClientSettings http, LabSettings settings, DownstreamPool pool) {
        int size = settings.clientPool();
        ClientHttpRequestFactoryBuilder<?> builder = switch (boot) {
            case HttpComponentsClientHttpRequestFactoryBuilder apache -> apache.withHttpClientCustomizer(client -> {
                PoolingHttpClientConnectionManager live = apacheManager(http, size);
                client.setConnectionManager(live);
                pool.use(new ApacheSource(live));
            });
            case ReactorClientHttpRequestFactoryBuilder netty -> netty.withHttpClientFactory(() -> {
                ConnectionProvider live = reactorProvider(size, pool);
                // its limit before its first connection: the pool, and so its counts, exist only from then on
                pool.use(new DownstreamPool.Fixed(live.maxConnections(), -1, 0, 0));
                return reactor.netty.http.client.HttpClient.create(live);
            });
            case JettyClientHttpRequestFactoryBuilder jetty -> jetty.withHttpClientCustomizer(client -> {
                if (size > 0) {
                    client.setMaxConnectionsPerDestination(size);
                }
                pool.use(new JettySource(client));
            });
            default -> boot; // the JDK's: no pool to size or read
        };
        return builder.build(http);
    }

    /**
     * Apache's pool as Boot builds it (the builder's defaults: 5 per route, 25 in all; Boot's connect and read
     * timeouts), built here so that the manager whose counts are read is the one the client uses.
     */
    private static PoolingHttpClientConnectionManager apacheManager(HttpClientSettings http, int size) {
        PoolingHttpClientConnectionManagerBuilder manager = PoolingHttpClientConnectionManagerBuilder.create()
                .useSystemProperties()
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(millis(http.connectTimeout()), TimeUnit.MILLISECONDS)
                        .setSocketTimeout((int) millis(http.readTimeout()), TimeUnit.MILLISECONDS)
                        .build());
        if (size > 0) {
            manager.setMaxConnPerRoute(size).setMaxConnTotal(size); // one route (the stub): the total is the route's
        }
        return manager.build();
    }

    /**
     * Reactor Netty's pool: the default provider's limits (2 × max(CPUs, 8) connections, twice that many waiting)
     * unless sized, with a meter registrar that hands over the pool's own counts at its first connection.
     */
    private static ConnectionProvider reactorProvider(int size, DownstreamPool pool) {
        ConnectionProvider.Builder provider = ConnectionProvider.builder(POOL_NAME)
                .metrics(true, () -> (name, id, address, metrics) -> pool.use(new ReactorSource(metrics)));
        if (size > 0) {
            provider.maxConnections(size);
        }
        return provider.build();
    }

    private static long millis(Duration duration) {
        return duration == null ? 0 : duration.toMillis();
    }

    private record ApacheSource(PoolingHttpClientConnectionManager manager) implements DownstreamPool.Source {
        public int maxPerRoute() {
            return manager.getDefaultMaxPerRoute();
        }

        public int maxPending() {
            return -1; // a request waits for a connection up to the connection-request timeout, however many wait
        }

        public int leased() {
            return manager.getTotalStats().getLeased();
        }

        public int pending() {
            PoolStats stats = manager.getTotalStats();
            return stats.getPending();
        }
    }

    private record ReactorSource(ConnectionPoolMetrics metrics) implements DownstreamPool.Source {
        public int maxPerRoute() {
            return metrics.maxAllocatedSize();
        }

        public int maxPending() {
            return metrics.maxPendingAcquireSize();
        }

        public int leased() {
            return metrics.acquiredSize();
        }

        public int pending() {
            return metrics.pendingAcquireSize();
        }
    }

    private record JettySource(org.eclipse.jetty.client.HttpClient client) implements DownstreamPool.Source {
        public int maxPerRoute() {
            return client.getMaxConnectionsPerDestination();
        }

        public int maxPending() {
            return client.getMaxRequestsQueuedPerDestination();
        }

        public int leased() {
            int active = 0;
            for (Destination destination : client.getDestinations()) {
                if (destination.getConnectionPool() instanceof AbstractConnectionPool connections) {
                    active += connections.getActiveConnectionCount();
                }
            }
            return active;
        }

        public int pending() {
            int queued = 0;
            for (Destination destination : client.getDestinations()) {
                if (destination instanceof HttpDestination http) {
                    queued += http.getQueuedRequestCount();
                }
            }
            return queued;
        }
    }
}
