package dev.vtlab.reactive.system;

import dev.vtlab.reactive.support.ReactiveApp;
import dev.vtlab.testsupport.ClientErrorsContract;

import org.springframework.boot.test.web.server.LocalServerPort;

/** The client errors the twin answers exactly as the app does (the contract), on the running twin. */
@ReactiveApp
class ClientErrorsTest implements ClientErrorsContract {

    @LocalServerPort
    int port;

    @Override
    public int port() {
        return port;
    }
}
