package dev.vtlab.app.runtime;

import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.ProtocolHandler;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

import dev.vtlab.app.system.NettyAcceptQueue;
import dev.vtlab.app.system.NettyBlockingExecution;

import org.springframework.boot.jetty.JettyWebServer;
import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.WebServer;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/** The running server's limits, read from its live objects: what the row's requests really met. */
final class ServerView {

    private ServerView() {
    }

    /**
     * maxThreads is -1 where no thread cap applies (Tomcat on its virtual-thread executor). Netty's parts are there
     * only when SERVER=netty built a Netty.
     */
    static RuntimeInfo.Server of(WebServer server, NettyBlockingExecution blocking, NettyAcceptQueue acceptQueue) {
        if (server instanceof TomcatWebServer tomcat) {
            ProtocolHandler handler = tomcat.getTomcat().getConnector().getProtocolHandler();
            if (handler instanceof AbstractProtocol<?> protocol) {
                String executor = protocol.getExecutor() == null ? "none"
                        : protocol.getExecutor().getClass().getSimpleName();
                return new RuntimeInfo.Server("tomcat", protocol.getMaxThreads(), protocol.getMaxConnections(),
                        protocol.getAcceptCount(), executor);
            }
        }
        if (server instanceof JettyWebServer jetty) {
            return jetty(jetty.getServer());
        }
        if (server instanceof NettyWebServer netty && blocking != null) {
            return netty(netty, blocking.executor(), acceptQueue);
        }
        return new RuntimeInfo.Server(server == null ? "none" : server.getClass().getSimpleName(), -1, -1, -1, "none");
    }

    /**
     * Jetty's threads: a queued pool of platform threads (its max caps the requests), or under virtual threads Spring
     * Boot's VirtualThreadPool, a virtual thread per task, capped only where it was given a maximum of concurrent
     * tasks (-1: none). Then the connection limit Spring Boot installs (server.jetty.max-connections; -1: none) and
     * the connector's accept queue.
     */
    private static RuntimeInfo.Server jetty(org.eclipse.jetty.server.Server server) {
        ThreadPool pool = server.getThreadPool();
        int maxThreads = pool instanceof ThreadPool.SizedThreadPool sized ? sized.getMaxThreads() : -1;
        String executor = pool.getClass().getSimpleName();
        if (pool instanceof VirtualThreadPool virtual) {
            maxThreads = virtual.getMaxConcurrentTasks() > 0 ? virtual.getMaxConcurrentTasks() : -1;
        }
        else if (pool instanceof QueuedThreadPool queued && queued.getVirtualThreadsExecutor() != null) {
            executor += " on virtual threads";
            maxThreads = -1;
        }
        NetworkConnectionLimit limit = server.getBean(NetworkConnectionLimit.class);
        int acceptQueue = -1;
        for (Connector connector : server.getConnectors()) {
            if (connector instanceof ServerConnector network) {
                acceptQueue = network.getAcceptQueueSize();
            }
        }
        return new RuntimeInfo.Server("jetty", maxThreads, limit == null ? -1 : limit.getMaxNetworkConnectionCount(),
                acceptQueue, executor);
    }

    /**
     * Netty takes the connections on its event loops and holds no limit of them (-1); the requests' threads are the
     * blocking executor's: a fixed pool of platform threads, or a virtual thread per request, capped only where it was
     * given a concurrency limit (-1: none). The accept queue is the listening channel's backlog.
     */
    private static RuntimeInfo.Server netty(NettyWebServer server, AsyncTaskExecutor executor,
            NettyAcceptQueue acceptQueue) {
        int maxThreads = -1;
        String name = executor.getClass().getSimpleName();
        if (executor instanceof ThreadPoolTaskExecutor pool) {
            maxThreads = pool.getMaxPoolSize();
        }
        else if (executor instanceof SimpleAsyncTaskExecutor perTask) {
            maxThreads = perTask.getConcurrencyLimit() > 0 ? perTask.getConcurrencyLimit() : -1;
        }
        int backlog = acceptQueue == null ? -1 : acceptQueue.backlogOn(server.getPort());
        return new RuntimeInfo.Server("netty", maxThreads, -1, backlog, name);
    }
}
