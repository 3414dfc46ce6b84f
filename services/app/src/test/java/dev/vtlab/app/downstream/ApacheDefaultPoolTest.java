package dev.vtlab.app.downstream;

import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** Apache HttpClient 5 as a user gets it: 5 connections per route, whatever the threads. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=3", "HTTP_CLIENT=apache" })
class ApacheDefaultPoolTest extends ClientPoolContract {

    String client() {
        return "apache";
    }

    String factory() {
        return "HttpComponentsClientHttpRequestFactory";
    }

    int maxPerRoute() {
        return 5;
    }
}
