package dev.vtlab.stub;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without SERVER_HTTP2_ENABLED the stub stays on HTTP/1.1 for a client that offers the h2c upgrade (the JDK's does,
 * unasked): a user's service must not move to HTTP/2 because the stub could.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "STUB_DELAY_MS=10" })
class StubHttp1ByDefaultTest {

    @LocalServerPort
    int port;

    @Test
    void aClientOfferingTheUpgradeStaysOnHttp11() throws Exception {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/downstream/7")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        }
    }
}
