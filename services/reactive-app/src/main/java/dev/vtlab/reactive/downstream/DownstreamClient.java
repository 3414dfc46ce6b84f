package dev.vtlab.reactive.downstream;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import dev.vtlab.common.ServiceSettings;
import dev.vtlab.common.downstream.DownstreamTimeoutException;
import dev.vtlab.common.downstream.DownstreamUnavailableException;
import io.netty.channel.ConnectTimeoutException;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Non-blocking call to the stub: the event loop registers the request and moves on; the answer resumes
 * the pipeline. Failures become the app's two exceptions so the API can tell a dead downstream (502)
 * from a slow one (504).
 */
@Component
public class DownstreamClient {

    private final WebClient webClient;
    private final ClientHttpConnector connector;
    private final HttpClientSettings httpSettings;
    private final URI baseUrl;

    public DownstreamClient(WebClient.Builder builder, ClientHttpConnector connector, HttpClientSettings httpSettings,
            ServiceSettings settings) {
        // Pass the auto-configured connector explicitly so runtime-info reports the instance that is used.
        this.webClient = builder.baseUrl(settings.stubUrl().toString()).clientConnector(connector).build();
        this.connector = connector;
        this.httpSettings = httpSettings;
        this.baseUrl = settings.stubUrl();
    }

    public Mono<JsonNode> fetch(long id) {
        return webClient.get().uri("/downstream/{id}", id)
                .retrieve()
                .bodyToMono(JsonNode.class)
                .filter(JsonNode::isObject)
                .switchIfEmpty(Mono.error(() ->
                        new DownstreamUnavailableException("Downstream answered without a JSON object", null)))
                .onErrorMap(ex -> !(ex instanceof DownstreamUnavailableException), DownstreamClient::translate);
    }

    private static RuntimeException translate(Throwable ex) {
        if (ex instanceof WebClientResponseException response) {
            return new DownstreamUnavailableException("Downstream answered HTTP " + response.getStatusCode().value(),
                    ex);
        }
        if (isTimeout(ex)) {
            return new DownstreamTimeoutException("Downstream did not answer in time", ex);
        }
        if (ex instanceof WebClientRequestException) {
            return new DownstreamUnavailableException("Downstream is unreachable", ex);
        }
        return new DownstreamUnavailableException("Downstream answer could not be read", ex);
    }

    private static boolean isTimeout(Throwable ex) {
        // Reactor Netty's response timeout raises ReadTimeoutException (a Netty TimeoutException); a connect
        // timeout is a ConnectTimeoutException, which is a ConnectException and must not be read as "refused".
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof io.netty.handler.timeout.TimeoutException || t instanceof ConnectTimeoutException
                    || t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    public URI baseUrl() {
        return baseUrl;
    }

    public ClientHttpConnector connector() {
        return connector;
    }

    public Duration connectTimeout() {
        return httpSettings.connectTimeout();
    }

    public Duration readTimeout() {
        return httpSettings.readTimeout();
    }
}
