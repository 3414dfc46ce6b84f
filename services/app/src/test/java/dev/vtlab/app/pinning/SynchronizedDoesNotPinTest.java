package dev.vtlab.app.pinning;

import java.util.List;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.PinnedEvents;
import dev.vtlab.app.support.VirtualHeldSynchronizedApp;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** JEP 491 (JDK 24+): a virtual thread blocking inside a monitor unmounts instead of pinning. */
@VirtualHeldSynchronizedApp
class SynchronizedDoesNotPinTest {

    @LocalServerPort
    int port;

    @Test
    void blockingInsideAMonitorRecordsNoPinning() throws Exception {
        LabHttp http = new LabHttp(port);
        http.get("/api/order-summary/14"); // warm up

        List<String> reasons = PinnedEvents.during(() ->
                assertThat(http.get("/api/order-summary/15").status()).isEqualTo(200));

        assertThat(reasons).isEmpty();
    }
}
