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
                    settings -> settings.maxConcurrentStreams(MAX_CONCURRENT_STREAMS)));
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
