package dev.vtlab.app.system;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.channel.ChannelOption;
import reactor.netty.DisposableServer;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;

/**
 * Netty's accept queue (the listening channel's backlog) sized like Tomcat's accept count (TOMCAT_ACCEPT_COUNT), as
 * JettyAcceptQueue does for Jetty; and the servers it bound, kept so that runtime-info reads the backlog back from the
 * live channel. Used only when SERVER=netty builds a Netty.
 */
@Component
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class NettyAcceptQueue implements NettyServerCustomizer {

    private final int acceptCount;
    private final List<DisposableServer> bound = new CopyOnWriteArrayList<>();

    NettyAcceptQueue(LabSettings settings) {
        this.acceptCount = settings.tomcatAcceptCount();
    }

    @Override
    public reactor.netty.http.server.HttpServer apply(reactor.netty.http.server.HttpServer server) {
        return server.option(ChannelOption.SO_BACKLOG, acceptCount).doOnBound(bound::add);
    }

    /** The live listening channel's backlog on the given port; -1 if no server of ours is bound there. */
    public int backlogOn(int port) {
        for (DisposableServer server : bound) {
            if (server.port() == port) {
                Integer backlog = server.channel().config().getOption(ChannelOption.SO_BACKLOG);
                return backlog == null ? -1 : backlog;
            }
        }
        return -1;
    }
}
