package dev.vtlab.app.system;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.config.BlockingExecutionConfigurer;
import org.springframework.web.reactive.config.WebFluxConfigurer;

/**
 * Where the blocking controllers run when SERVER=netty: never on Reactor Netty's event loops (a handful of threads,
 * which one JDBC query would stall), but on a blocking executor that WebFlux hands every controller method with a
 * non-reactive return type.
 *
 * <p>Under virtual threads it is the executor Spring Boot gives WebFlux itself: its applicationTaskExecutor, a new
 * virtual thread per task. On platform threads Spring Boot configures none, which leaves the blocking methods on the
 * event loops; vtlab gives them a fixed pool of TOMCAT_MAX_THREADS platform threads instead, the request threads
 * Tomcat and Jetty get, so that the row compares thread models rather than a misconfiguration with one.
 */
@Component
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class NettyBlockingExecution implements WebFluxConfigurer, DisposableBean {

    private final AsyncTaskExecutor executor;
    /** The pool vtlab built and must stop (platform threads); null when it is Spring Boot's. */
    private final ThreadPoolTaskExecutor ownPool;

    NettyBlockingExecution(LabSettings settings,
            @Qualifier("applicationTaskExecutor") AsyncTaskExecutor applicationTaskExecutor) {
        if (settings.virtualThreads()) {
            this.ownPool = null;
            this.executor = applicationTaskExecutor;
        }
        else {
            ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
            pool.setCorePoolSize(settings.tomcatMaxThreads());
            pool.setMaxPoolSize(settings.tomcatMaxThreads());
            pool.setThreadNamePrefix("blocking-");
            // Waiting requests queue like Tomcat's (an unbounded task queue behind a fixed pool of threads).
            pool.initialize();
            this.ownPool = pool;
            this.executor = pool;
        }
    }

    @Override
    public void configureBlockingExecution(BlockingExecutionConfigurer configurer) {
        configurer.setExecutor(executor);
    }

    /** The executor the controllers run on, as runtime-info reads its limits. */
    public AsyncTaskExecutor executor() {
        return executor;
    }

    @Override
    public void destroy() {
        if (ownPool != null) {
            ownPool.shutdown();
        }
    }
}
