import Foundation
import NetEase
import Testing

/// The synchronous request API the NetEase client builds on: form POSTs with headers and cookies, any status as
/// a response, transport failures as errors within the timeouts.
@Suite("HTTP client")
struct HTTPClientTests {
    /// Answers every request with its method, path, headers and body as text, and sets two cookies.
    func echoServer() throws -> TestHTTPServer {
        try TestHTTPServer { request, connection in
            switch request.path {
            case "/old":
                connection.sendHead("301 Moved Permanently", [("Location", "/echo"), ("Content-Length", "0")])
            case "/limited":
                connection.sendHead("405 Method Not Allowed", [("Content-Length", "4")])
                connection.send(Array("slow".utf8))
            case "/silent":
                connection.stall()
            default:
                var text = "\(request.method) \(request.path)\n"
                for header in request.headers { text += "\(header.name): \(header.value)\n" }
                let body = Array(text.utf8) + request.body
                connection.sendHead("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "\(body.count)"),
                                               ("Set-Cookie", "MUSIC_A=guest; Path=/"),
                                               ("Set-Cookie", "__csrf=abc; Max-Age=1296010")])
                connection.send(body)
            }
        }
    }

    @Test func postsAFormWithHeaders() throws {
        let server = try echoServer()
        let client = HTTPClient(configuration: HTTPConfiguration(userAgent: "TestAgent/1",
                                                                 headers: [HTTPHeader("X-Real-IP", "116.25.146.177")]))
        let form = "params=a%2Bb%3D&encSecKey=0123" + String(repeating: "x", count: 3000)
        let response = try client.perform(HTTPRequest(server.url("/weapi/v1/thing"), method: .post, headers: [
            HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
            HTTPHeader("Cookie", "MUSIC_U=secret; os=pc"),
        ], body: Array(form.utf8)))
        #expect(response.status == 200)
        #expect(response.header("content-type") == "text/plain")
        #expect(response.headers(named: "Set-Cookie") == ["MUSIC_A=guest; Path=/", "__csrf=abc; Max-Age=1296010"])
        let lines = response.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "POST /weapi/v1/thing")
        #expect(lines.contains("user-agent: TestAgent/1"))
        #expect(lines.contains("x-real-ip: 116.25.146.177"))
        #expect(lines.contains("cookie: MUSIC_U=secret; os=pc"))
        #expect(lines.contains("content-type: application/x-www-form-urlencoded"))
        #expect(!lines.contains { $0.hasPrefix("expect:") })
        #expect(response.text.hasSuffix("\n" + form))
    }

    @Test func getFollowsRedirects() throws {
        let server = try echoServer()
        let response = try HTTPClient().perform(HTTPRequest(server.url("/old")))
        #expect(response.status == 200)
        #expect(response.url == server.url("/echo"))
        #expect(response.text.hasPrefix("GET /echo\n"))
        let unfollowed = try HTTPClient(configuration: HTTPConfiguration(maxRedirects: 0))
            .perform(HTTPRequest(server.url("/old")))
        #expect(unfollowed.status == 301 && unfollowed.header("Location") == "/echo")
    }

    /// An error status is an answer (NetEase's 405 means "slow down"), not a failure.
    @Test func errorStatusIsAResponse() throws {
        let server = try echoServer()
        let response = try HTTPClient().perform(HTTPRequest(server.url("/limited"), method: .post, body: []))
        #expect(response.status == 405)
        #expect(response.text == "slow")
    }

    @Test func silentServerTimesOut() throws {
        let server = try echoServer()
        let client = HTTPClient(configuration: HTTPConfiguration(connectTimeout: 2, requestTimeout: 1))
        let start = Date()
        let error = try #require(throws: HTTPError.self) { try client.perform(HTTPRequest(server.url("/silent"))) }
        #expect(error.kind == .timeout)
        #expect(error.url == server.url("/silent"))
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func refusedConnectionIsAnError() throws {
        let error = try #require(throws: HTTPError.self) {
            try HTTPClient().perform(HTTPRequest("http://127.0.0.1:1/"))
        }
        #expect(error.kind == .connection)
        #expect(!error.message.isEmpty)
    }

    @Test func onlyTheWeb() throws {
        let error = try #require(throws: HTTPError.self) { try HTTPClient().perform(HTTPRequest("file:///etc/passwd")) }
        #expect(error.kind == .invalidURL)
    }

    @Test func libcurlIsLinked() {
        #expect(HTTPClient.version.hasPrefix("libcurl/"))
    }
}
