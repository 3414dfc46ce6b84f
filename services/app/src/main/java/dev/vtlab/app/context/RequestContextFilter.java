package dev.vtlab.app.context;

import java.io.IOException;

import dev.vtlab.app.system.LabSettings;
import dev.vtlab.app.system.LabSettings.ContextMode;
import dev.vtlab.common.jdk25.Jdk25Parts;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Binds a fresh {@link RequestContext} around every API request, as CONTEXT_MODE says: set and removed
 * in a ThreadLocal (the classic way), or bound to a ScopedValue for the handler's dynamic extent.
 */
@Component("labRequestContextFilter")
@ConditionalOnWebApplication(type = Type.SERVLET)  // WebFlux runs no servlet filter: SERVER=netty refuses CONTEXT_MODE
class RequestContextFilter extends OncePerRequestFilter {

    private final ContextMode mode;
    private final int kilobytes;
    /** Loaded at start-up when CONTEXT_MODE=scopedvalue, so a JDK 21 service fails then, naming the variable. */
    private final Jdk25Parts.ContextSlot<RequestContext> scoped;

    RequestContextFilter(LabSettings settings) {
        this.mode = settings.contextMode();
        this.kilobytes = settings.contextKb();
        this.scoped = mode == ContextMode.SCOPEDVALUE ? RequestContext.useScopedValue() : null;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return mode == ContextMode.NONE || !request.getRequestURI().startsWith("/api/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        RequestContext context = RequestContext.create(kilobytes);
        response.setHeader("X-Request-Id", context.requestId());
        switch (mode) {
            case THREADLOCAL -> {
                RequestContext.threadLocal().set(context);
                try {
                    chain.doFilter(request, response);
                }
                finally {
                    // Without this a pooled platform thread would keep the last request's context alive.
                    RequestContext.threadLocal().remove();
                }
            }
            case SCOPEDVALUE -> {
                try {
                    scoped.callWhere(context, () -> {
                        chain.doFilter(request, response);
                        return null;
                    });
                }
                catch (ServletException | IOException | RuntimeException ex) {
                    throw ex;
                }
                catch (Exception ex) {
                    throw new ServletException(ex);
                }
            }
            case NONE -> chain.doFilter(request, response);
        }
    }
}
