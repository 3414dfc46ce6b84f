package dev.vtlab.app.context;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.vtlab.app.system.LabSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.mock.env.MockEnvironment;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The filter's contract, mode by mode: visible to the handler, sized as asked, gone afterwards. */
class RequestContextFilterTest {

    @ParameterizedTest
    @ValueSource(strings = { "threadlocal", "scopedvalue" })
    void theHandlerSeesAContextOfTheConfiguredSizeAndNothingLeaksAfterwards(String mode) throws Exception {
        List<Optional<RequestContext>> seen = new CopyOnWriteArrayList<>();
        MockHttpServletResponse response = new MockHttpServletResponse();

        filter(mode, 8).doFilter(new MockHttpServletRequest("GET", "/api/order-summary/1"), response,
                new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
                    @Override
                    protected void service(jakarta.servlet.http.HttpServletRequest req,
                            jakarta.servlet.http.HttpServletResponse res) {
                        seen.add(RequestContext.current());
                    }
                }));

        assertThat(seen).hasSize(1);
        RequestContext context = seen.getFirst().orElseThrow();
        assertThat(context.payload()).hasSize(8 * 1024);
        assertThat(response.getHeader("X-Request-Id")).isEqualTo(context.requestId());
        assertThat(RequestContext.current()).as("context left behind on the thread").isEmpty();
    }

    @Test
    void noneBindsNothing() throws Exception {
        List<Optional<RequestContext>> seen = new CopyOnWriteArrayList<>();
        MockHttpServletResponse response = new MockHttpServletResponse();
        filter("none", 8).doFilter(new MockHttpServletRequest("GET", "/api/order-summary/1"), response,
                new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
                    @Override
                    protected void service(jakarta.servlet.http.HttpServletRequest req,
                            jakarta.servlet.http.HttpServletResponse res) {
                        seen.add(RequestContext.current());
                    }
                }));
        assertThat(seen).containsExactly(Optional.empty());
        assertThat(response.getHeader("X-Request-Id")).isNull();
    }

    @Test
    void aScopedContextReachesThreadsForkedInAStructuredScopeAThreadLocalDoesNot() throws Exception {
        // The fan-out forks its calls: only a ScopedValue binding is inherited by those threads.
        for (String mode : List.of("threadlocal", "scopedvalue")) {
            List<Boolean> forkSees = new CopyOnWriteArrayList<>();
            filter(mode, 1).doFilter(new MockHttpServletRequest("GET", "/api/fanout/1"),
                    new MockHttpServletResponse(), new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
                        @Override
                        protected void service(jakarta.servlet.http.HttpServletRequest req,
                                jakarta.servlet.http.HttpServletResponse res) {
                            try {
                                var results = dev.vtlab.fanout.FanOut.structured().all(
                                        () -> RequestContext.current().isPresent(), () -> true, () -> true);
                                forkSees.add(results.first());
                            }
                            catch (InterruptedException ex) {
                                throw new IllegalStateException(ex);
                            }
                        }
                    }));
            assertThat(forkSees).as(mode).containsExactly("scopedvalue".equals(mode));
        }
    }

    private static RequestContextFilter filter(String mode, int kilobytes) {
        return new RequestContextFilter(LabSettings.from(new MockEnvironment()
                .withProperty("CONTEXT_MODE", mode)
                .withProperty("CONTEXT_KB", String.valueOf(kilobytes))));
    }
}
