package dev.vtlab.app.system;

import org.eclipse.jetty.server.ServerConnector;

import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * Jetty's accept queue sized like Tomcat's accept count (TOMCAT_ACCEPT_COUNT): the connections the kernel queues for the
 * server beyond those it holds, which Spring Boot sets for Tomcat only. Used only when SERVER=jetty builds a Jetty.
 */
@Component
class JettyAcceptQueue implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    private final LabSettings settings;

    JettyAcceptQueue(LabSettings settings) {
        this.settings = settings;
    }

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        factory.addServerCustomizers(server -> {
            for (var connector : server.getConnectors()) {
                if (connector instanceof ServerConnector network) {
                    network.setAcceptQueueSize(settings.tomcatAcceptCount());
                }
            }
        });
    }
}
