package dev.vtlab.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A plain JDK client: tests see exactly the bytes and headers a real client gets. */
public final class LabHttp {

    // A client of its own per instance (tests make one per test): a keep-alive connection left by one test
    // class is never reused by the next, which may talk to the same cached application context.
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final int port;

    public LabHttp(int port) {
        this.port = port;
    }

    public Response get(String path) {
        try {
            return Response.of(client.send(request(path), HttpResponse.BodyHandlers.ofString()));
        }
        catch (IOException ex) {
            throw new IllegalStateException("GET " + path + " failed", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    public Response post(String path, String json) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        try {
            return Response.of(client.send(request, HttpResponse.BodyHandlers.ofString()));
        }
        catch (IOException ex) {
            throw new IllegalStateException("POST " + path + " failed", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    public CompletableFuture<Response> getAsync(String path) {
        return client.sendAsync(request(path), HttpResponse.BodyHandlers.ofString()).thenApply(Response::of);
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
    }

    public record Response(int status, String contentType, String retryAfter, String body, String location,
            String requestId) {

        static Response of(HttpResponse<String> response) {
            return new Response(response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(""),
                    response.headers().firstValue("Retry-After").orElse(null),
                    response.body(),
                    response.headers().firstValue("Location").orElse(null),
                    response.headers().firstValue("X-Request-Id").orElse(null));
        }

        public JsonNode json() {
            return JsonMapper.shared().readTree(body);
        }
    }
}
