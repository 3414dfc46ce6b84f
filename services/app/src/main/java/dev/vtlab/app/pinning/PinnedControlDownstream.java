package dev.vtlab.app.pinning;

import java.net.http.HttpClient;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.vtlab.app.downstream.DownstreamClient;
import dev.vtlab.app.system.LabSettings;
import dev.vtlab.app.system.LabSettings.PathMode;
import dev.vtlab.common.jdk25.Jdk25Parts;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * The downstream call of PATH_MODE=pinned-control: the same request to the same stub, made under a
 * native frame, on a JDK HttpClient whose completions run on platform threads.
 *
 * <p>Why its own client: with the app's client, the response is completed by a task that itself
 * needs a carrier thread. Once every carrier is pinned waiting for a response, nothing can complete
 * one: measured on 2 cores, every request stalled until the 10 s read timeout. Pinning can deadlock
 * a service outright, and that is worth knowing, but a control that measures only timeouts cannot
 * show the cost of pinning itself; with completions on platform threads it pins each carrier for
 * exactly one downstream call.
 */
@Component
public class PinnedControlDownstream implements DisposableBean {

    private final ExecutorService completions = Executors.newCachedThreadPool(
            Thread.ofPlatform().name("pinned-control-http-", 0).daemon().factory());
    private final DownstreamClient client;
    /** Null unless PATH_MODE=pinned-control: the FFM class (module jdk25) is loaded only then. */
    private final Jdk25Parts.UnderNativeFrame nativeFrame;

    PinnedControlDownstream(RestClient.Builder builder, HttpClientSettings httpSettings, LabSettings settings) {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.service().downstreamConnectTimeout())
                .executor(completions)
                .build();
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(http);
        factory.setReadTimeout(settings.service().downstreamReadTimeout());
        this.client = new DownstreamClient(builder, factory, httpSettings, settings.service());
        this.nativeFrame = settings.pathMode() == PathMode.PINNED_CONTROL
                ? Jdk25Parts.load("dev.vtlab.jdk25.NativeFrame", Jdk25Parts.UnderNativeFrame.class, "PATH_MODE",
                        LabSettings.valueName(PathMode.PINNED_CONTROL))
                : null;
    }

    /** The same call without the native frame: PATH_MODE=synchronized-platform-http makes it inside a monitor. */
    public JsonNode fetchOnPlatformCompletions(long id) {
        return client.fetch(id);
    }

    /** {@link DownstreamClient#fetch} inside a native frame: pins the calling virtual thread. */
    public JsonNode fetchPinned(long id) {
        if (nativeFrame == null) {
            throw new IllegalStateException("the native frame is loaded only with PATH_MODE=pinned-control");
        }
        return nativeFrame.call(() -> client.fetch(id));
    }

    @Override
    public void destroy() {
        completions.shutdownNow();
    }
}
