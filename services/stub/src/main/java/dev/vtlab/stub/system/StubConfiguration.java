package dev.vtlab.stub.system;

import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

@Configuration(proxyBeanMethods = false)
public class StubConfiguration {

    /**
     * As many HTTP/2 streams at once on one connection as a row has users waiting: Netty allows 100 by default, and
     * the JDK's HttpClient fails a request beyond the server's limit at once ("too many concurrent streams") rather
     * than queue it or open another connection.
     */
    static final long MAX_CONCURRENT_STREAMS = 1_000_000;

    /**
     * No limit on the streams a client resets (0: Netty's guard off). The guard against rapid-reset floods
     * (CVE-2023-44487) closes a connection after 200 resets in 30 s, and the service resets every call it stops
     * waiting for: at 10,000 users on one HTTP/2 connection a few hundred read timeouts in a ramp closed it, every
     * call still waiting on it failed (36,000 502s and 504s, nothing served for 5 s: a stall), and the next
     * connection went the same way. The stub listens on 127.0.0.1 for the rig's own service only.
     */
    static final int NO_RESET_LIMIT = 0;

    @Bean
    StubSettings stubSettings(Environment environment) {
        return StubSettings.from(environment);
    }

    @Bean
    ManyConcurrentStreams manyConcurrentStreams() {
        return new ManyConcurrentStreams();
    }

    /**
     * Ordered last: Spring Boot's own server customizer sets the HTTP/2 settings too (the header list's size), and
     * the last to set them wins (as a plain NettyServerCustomizer bean this one ran first: the stub still allowed 100).
     */
    static final class ManyConcurrentStreams implements WebServerFactoryCustomizer<NettyReactiveWebServerFactory>, Ordered {

        @Override
        public void customize(NettyReactiveWebServerFactory factory) {
            factory.addServerCustomizers(server -> server.http2Settings(
                    settings -> settings.maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                            .maxDecodedRstFramesPerWindow(NO_RESET_LIMIT, NO_RESET_LIMIT)));
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
