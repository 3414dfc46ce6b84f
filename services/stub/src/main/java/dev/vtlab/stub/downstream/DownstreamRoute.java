package dev.vtlab.stub.downstream;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.vtlab.stub.system.StubSettings;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;

import org.springframework.boot.reactor.netty.NettyRouteProvider;
import org.springframework.stereotype.Component;

/**
 * GET /downstream/{id}: the answer after the configured delay, served by Reactor Netty's own router ahead of
 * Spring WebFlux (every other path, the actuator's included, still reaches WebFlux).
 *
 * <p>The stub shares the machine with the service it stands in front of, so every microsecond it spends is one
 * the service does not get. WebFlux's dispatch and per-request observation, Jackson, and a timer on Reactor's
 * parallel scheduler whose answer then hops back to the connection's event loop cost about 0.11 ms of CPU a
 * request at the hero point. This answers from the connection's own event loop, with a timer on that loop and a
 * body written by hand.
 */
@Component
class DownstreamRoute implements NettyRouteProvider {

    /** A fixed ~64-character payload so responses have a realistic, constant size. */
    static final String PAYLOAD = "vtlab-downstream-payload-0123456789abcdefghijklmnopqrstuvwxyzABCD";

    private final long delayMs;
    private final long jitterMs;

    DownstreamRoute(StubSettings settings) {
        this.delayMs = settings.delay().toMillis();
        this.jitterMs = settings.jitter().toMillis();
    }

    @Override
    public HttpServerRoutes apply(HttpServerRoutes routes) {
        return routes.get("/downstream/{id}", this::answer);
    }

    private Publisher<Void> answer(HttpServerRequest request, HttpServerResponse response) {
        long id;
        try {
            id = Long.parseLong(request.param("id"));
        } catch (NumberFormatException notANumber) {
            return response.status(HttpResponseStatus.BAD_REQUEST).send();
        }
        long delay = delayMs + (jitterMs == 0 ? 0 : ThreadLocalRandom.current().nextLong(jitterMs + 1));
        byte[] body = body(id, delay);
        response.header(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
        // the connection's event loop runs this handler: a timer on that loop answers without waking another thread
        Mono<byte[]> later = Mono.create(sink -> response.withConnection(connection -> {
            var timer = connection.channel().eventLoop().schedule(() -> sink.success(body), delay, TimeUnit.MILLISECONDS);
            sink.onCancel(() -> timer.cancel(false));
        }));
        return response.sendByteArray(later);
    }

    /** The answer's JSON, with the fields and order the stub has always sent (the services read it as a record). */
    static byte[] body(long id, long delay) {
        return ("{\"id\":" + id + ",\"source\":\"stub\",\"delayMs\":" + delay + ",\"payload\":\"" + PAYLOAD + "\"}")
                .getBytes(StandardCharsets.US_ASCII);
    }
}
