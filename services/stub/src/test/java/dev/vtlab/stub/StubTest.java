package dev.vtlab.stub;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The real stub on Netty, on a random port, talked to over HTTP. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "STUB_DELAY_MS=150", "STUB_JITTER_MS=50", "server.http2.enabled=true" })
class StubTest {

    /** For the concurrent requests only: fresh connections, sent at once. */
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @Test
    void answersWithSmallJsonAfterDelayPlusJitter() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = get("/downstream/42");
        long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        JsonNode body = JsonMapper.shared().readTree(response.body());
        assertThat(body.propertyNames()).containsExactly("id", "source", "delayMs", "payload");
        assertThat(body.get("id").asLong()).isEqualTo(42);
        assertThat(body.get("source").asString()).isEqualTo("stub");
        assertThat(body.get("delayMs").asLong()).isBetween(150L, 200L);
        assertThat(body.get("payload").asString()).hasSizeBetween(60, 70);
        // a length, not a chunked body: the stub's answer is one write
        assertThat(response.headers().firstValue("Content-Length")).hasValue(
                Integer.toString(response.body().length()));
        assertThat(elapsedMs).as("elapsed ms").isGreaterThanOrEqualTo(body.get("delayMs").asLong());
    }

    @Test
    void concurrentRequestsWaitInParallelNotInTurn() {
        // 200 requests at once on a 2-core box: only a non-blocking delay lets them finish in ~one delay.
        long start = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> inFlight = IntStream.range(0, 200)
                .mapToObj(i -> CLIENT.sendAsync(request("/downstream/" + i), HttpResponse.BodyHandlers.ofString()))
                .toList();
        inFlight.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(200));
        long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();

        assertThat(elapsedMs).as("elapsed ms for 200 concurrent requests").isGreaterThanOrEqualTo(150).isLessThan(3000);
    }

    @Test
    void aClientAskingForHttp2GetsItAndAThousandStreamsAtOnceOnOneConnection() {
        // Netty's default allows 100 streams at once; the JDK client fails the 101st instead of waiting for it
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            HttpResponse<String> first = client.sendAsync(request("/downstream/1"), HttpResponse.BodyHandlers.ofString())
                    .join();
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
            List<CompletableFuture<HttpResponse<String>>> inFlight = IntStream.range(0, 1000)
                    .mapToObj(i -> client.sendAsync(request("/downstream/" + i), HttpResponse.BodyHandlers.ofString()))
                    .toList();
            inFlight.forEach(f -> {
                HttpResponse<String> response = f.join();
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            });
        }
    }

    @Test
    void streamsTheClientResetsNeverCloseTheConnectionTheOthersWaitOn() throws Exception {
        // The service resets every call it stops waiting for (its read timeout); Netty's guard against rapid-reset
        // floods closes the whole connection after 200 resets in 30 s, failing every call still waiting on it
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            assertThat(client.send(request("/downstream/1"), HttpResponse.BodyHandlers.ofString()).version())
                    .isEqualTo(HttpClient.Version.HTTP_2);
            List<CompletableFuture<HttpResponse<String>>> waiting = IntStream.range(0, 50)
                    .mapToObj(i -> client.sendAsync(request("/downstream/" + i), HttpResponse.BodyHandlers.ofString()))
                    .toList();
            List<CompletableFuture<HttpResponse<String>>> abandoned = IntStream.range(0, 400)
                    .mapToObj(i -> client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/downstream/" + i))
                            .timeout(Duration.ofMillis(100)).build(), HttpResponse.BodyHandlers.ofString()))
                    .toList();
            long timedOut = abandoned.stream().filter(f -> f.handle((response, failure) -> failure != null).join())
                    .count();
            assertThat(timedOut).as("calls the client gave up on").isGreaterThan(200);
            waiting.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(200));
        }
    }

    @Test
    void onlyHealthIsExposed() throws Exception {
        assertThat(get("/actuator/health").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/env").statusCode()).isEqualTo(404);
        assertThat(get("/actuator/beans").statusCode()).isEqualTo(404);
    }

    @Test
    void nonNumericIdIsABadRequest() throws Exception {
        assertThat(get("/downstream/abc").statusCode()).isEqualTo(400);
    }

    @Test
    void anyOtherPathIsNotFound() throws Exception {
        // the downstream's route is Reactor Netty's; everything else falls through to WebFlux
        assertThat(get("/downstream").statusCode()).isEqualTo(404);
        assertThat(get("/downstream/1/more").statusCode()).isEqualTo(404);
        assertThat(get("/elsewhere").statusCode()).isEqualTo(404);
    }

    // A connection per request: reusing a kept-alive one after a 404 from Netty stalled the next request
    // until its 10 s timeout (once in CI, under load); these tests are about answers, not about keep-alive.
    private HttpResponse<String> get(String path) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            return client.send(request(path), HttpResponse.BodyHandlers.ofString());
        }
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build();
    }
}
