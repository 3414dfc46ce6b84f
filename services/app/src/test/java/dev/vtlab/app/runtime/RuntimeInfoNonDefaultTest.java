package dev.vtlab.app.runtime;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.app.support.VirtualHeldSynchronizedApp;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@VirtualHeldSynchronizedApp
class RuntimeInfoNonDefaultTest {

    @LocalServerPort
    int port;

    @Test
    void runtimeInfoReflectsEveryNonDefaultSetting() {
        JsonNode info = new LabHttp(port).get("/api/runtime-info").json();

        assertThat(info.get("threadMode").asString()).isEqualTo("virtual");
        assertThat(info.get("servedBy").get("virtual").asBoolean()).isTrue();
        assertThat(info.get("pool").get("maximumPoolSize").asInt()).isEqualTo(7);
        assertThat(info.get("pool").get("minimumIdle").asInt()).isEqualTo(7);
        assertThat(info.get("pool").get("connectionTimeoutMs").asLong()).isEqualTo(4000);
        assertThat(info.get("connMode").asString()).isEqualTo("held");
        assertThat(info.get("pathMode").asString()).isEqualTo("synchronized");
        assertThat(info.get("downstream").get("connectTimeoutMs").asLong()).isEqualTo(1500);
        assertThat(info.get("downstream").get("readTimeoutMs").asLong()).isEqualTo(9000);
        assertThat(info.get("downstream").get("httpVersion").asString()).isEqualTo("http2");
        assertThat(info.get("offload").get("executor").asString()).isEqualTo("virtual");
        assertThat(info.get("offload").get("poolSize").asInt()).isEqualTo(-1); // OFFLOAD_POOL caps platform pools only
    }

    @Test
    void tomcatRunsOnVirtualThreadExecutorWithoutThreadCap() {
        JsonNode tomcat = new LabHttp(port).get("/api/runtime-info").json().get("tomcat");

        assertThat(tomcat.get("executor").asString()).isEqualTo("VirtualThreadExecutor");
        // TOMCAT_MAX_THREADS=123 is configured but has no effect on an external executor; Tomcat says -1.
        assertThat(tomcat.get("maxThreads").asInt()).isEqualTo(-1);
        // the connector's limits are its own: sized by TOMCAT_MAX_CONNECTIONS and TOMCAT_ACCEPT_COUNT whatever the threads
        assertThat(tomcat.get("maxConnections").asInt()).isEqualTo(12000);
        assertThat(tomcat.get("acceptCount").asInt()).isEqualTo(300);
    }
}
