package dev.vtlab.app.downstream;

import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import dev.vtlab.app.context.RequestContext;
import dev.vtlab.common.ServiceSettings;
import dev.vtlab.common.downstream.DownstreamTimeoutException;
import dev.vtlab.common.downstream.DownstreamUnavailableException;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestClientResponseException;

/**
 * Blocking call to the stub. Blocking is the point: it is what parks a virtual thread or ties up a
 * platform thread. Failures are translated into two exceptions so the API can tell a dead downstream
 * (502) from a slow one (504).
 */
@Component
public class DownstreamClient {

    private final RestClient restClient;
    private final ClientHttpRequestFactory requestFactory;
    private final HttpClientSettings httpSettings;
    private final URI baseUrl;

    public DownstreamClient(RestClient.Builder builder, ClientHttpRequestFactory requestFactory,
            HttpClientSettings httpSettings, ServiceSettings settings) {
        // Pass the auto-configured factory explicitly so runtime-info reports the instance that is used.
        this.restClient = builder.baseUrl(settings.stubUrl().toString()).requestFactory(requestFactory).build();
        this.requestFactory = requestFactory;
        this.httpSettings = httpSettings;
        this.baseUrl = settings.stubUrl();
    }

    public JsonNode fetch(long id) {
        try {
            // The request's context travels downstream as a correlation id, read where it is needed.
            JsonNode body = restClient.get().uri("/downstream/{id}", id)
                    .headers(headers -> RequestContext.current()
                            .ifPresent(context -> headers.set("X-Request-Id", context.requestId())))
                    .retrieve().body(JsonNode.class);
            if (body == null || !body.isObject()) {
                throw new DownstreamUnavailableException("Downstream answered without a JSON object", null);
            }
            return body;
        }
        catch (RestClientResponseException ex) {
            throw new DownstreamUnavailableException("Downstream answered HTTP " + ex.getStatusCode().value(), ex);
        }
        catch (ResourceAccessException ex) {
            if (isTimeout(ex)) {
                throw new DownstreamTimeoutException("Downstream did not answer in time", ex);
            }
            throw new DownstreamUnavailableException("Downstream is unreachable", ex);
        }
        catch (RestClientException ex) {
            throw new DownstreamUnavailableException("Downstream answer could not be read", ex);
        }
    }

    private static boolean isTimeout(Throwable ex) {
        // HttpConnectTimeoutException is a subclass of HttpTimeoutException, so both timeouts land here.
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof HttpTimeoutException || t instanceof SocketTimeoutException
                    || t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    public URI baseUrl() {
        return baseUrl;
    }

    public ClientHttpRequestFactory requestFactory() {
        return requestFactory;
    }

    public Duration connectTimeout() {
        return httpSettings.connectTimeout();
    }

    public Duration readTimeout() {
        return httpSettings.readTimeout();
    }
}
