package dev.vtlab.app.pinning;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PinnedEvents;
import dev.vtlab.app.support.VirtualPinnedControlApp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@VirtualPinnedControlApp
class PinnedControlOnVirtualThreadsTest {

    @LocalServerPort
    int port;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void controlPathAnswersTheSameDocument() {
        LabHttp.Response response = http.get("/api/order-summary/11");

        assertThat(response.status()).as(response.body()).isEqualTo(200);
        JsonNode json = response.json();
        assertThat(json.get("order").get("id").asLong()).isEqualTo(11);
        assertThat(json.get("downstream").get("id").asLong()).isEqualTo(11);
        assertThat(json.get("thread").get("virtual").asBoolean()).isTrue();
        assertThat(http.get("/api/runtime-info").json().get("pathMode").asString()).isEqualTo("pinned-control");
    }

    /**
     * More pinned requests than carrier threads: each holds its carrier for one downstream call, and
     * every one completes. (On the app's own client the responses needed a free carrier to complete:
     * with every carrier pinned, all requests stalled until the read timeout.)
     */
    @Test
    void morePinnedRequestsThanCarriersAllComplete() {
        int requests = 3 * Runtime.getRuntime().availableProcessors();
        List<CompletableFuture<LabHttp.Response>> inFlight = LongStream.rangeClosed(21, 20 + requests)
                .mapToObj(id -> http.getAsync("/api/order-summary/" + id)).toList();

        inFlight.forEach(request -> assertThat(request.join().status()).as(request.join().body()).isEqualTo(200));
    }

    /** The positive control: blocking under a native frame still pins on JDK 25, and JFR sees it. */
    @Test
    void blockingUnderANativeFramePinsAndJfrRecordsWhy() throws Exception {
        http.get("/api/order-summary/12"); // warm up: class loading must not be what we record

        List<String> reasons = PinnedEvents.during(() ->
                assertThat(http.get("/api/order-summary/13").status()).isEqualTo(200));

        assertThat(reasons).as("jdk.VirtualThreadPinned reasons").isNotEmpty();
        assertThat(reasons).allSatisfy(reason -> assertThat(reason).containsIgnoringCase("native"));
    }
}
