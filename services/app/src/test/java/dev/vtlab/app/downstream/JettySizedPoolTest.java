package dev.vtlab.app.downstream;

import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** Jetty's client sized by CLIENT_POOL, on platform request threads. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3", "HTTP_CLIENT=jetty",
        "CLIENT_POOL=4" })
class JettySizedPoolTest extends ClientPoolContract {

    String client() {
        return "jetty";
    }

    String factory() {
        return "JettyClientHttpRequestFactory";
    }

    int maxPerRoute() {
        return 4;
    }
}
