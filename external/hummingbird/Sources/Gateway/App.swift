import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Prometheus

/// Settings from the environment (names in Contract / contract-b.json).
struct GatewayConfig: Sendable {
    let port: Int
    let backendURL: String
    let apiKeys: [String]
    let modelID: String
    let poolSize: Int
    let requestLog: Bool

    init(environment env: [String: String]) throws {
        guard let backend = env[Contract.envBackendURL], !backend.isEmpty else {
            throw ConfigError("\(Contract.envBackendURL) is required (e.g. http://127.0.0.1:8081)")
        }
        self.backendURL = backend.hasSuffix("/") ? String(backend.dropLast()) : backend
        self.port = Int(env[Contract.envPort] ?? "0") ?? 0
        let keys = env[Contract.envAPIKeys] ?? Contract.defaultAPIKeys.joined(separator: ",")
        self.apiKeys = keys.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let model = env[Contract.envModelID] ?? ""
        self.modelID = model.isEmpty ? Contract.defaultModelID : model
        guard let pool = Int(env[Contract.envUpstreamPoolSize] ?? String(Contract.defaultUpstreamPoolSize)), pool >= 1 else {
            throw ConfigError("\(Contract.envUpstreamPoolSize) must be a positive integer")
        }
        self.poolSize = pool
        let log = (env[Contract.envRequestLog] ?? "1").lowercased()
        self.requestLog = !["0", "false", "off", "no"].contains(log)
    }
}

struct ConfigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func buildRouter(config: GatewayConfig, client: HTTPClient, registry: PrometheusCollectorRegistry) -> Router<BasicRequestContext> {
    let router = Router()
    // Middleware first (so the not-found responder is wrapped too), outermost first.
    if config.requestLog {
        var requestLogger = Logger(label: "gateway.request")
        requestLogger.logLevel = .info
        router.add(middleware: RequestLogMiddleware(logger: requestLogger))
    }
    router.add(middleware: MetricsMiddleware(registry: registry))
    router.add(middleware: TracingMiddleware())
    router.add(middleware: ErrorMapperMiddleware())

    router.get("/healthz") { _, _ -> Response in
        jsonResponse(status: 200, Contract.healthzBody)
    }
    router.get("/metrics") { _, _ -> Response in
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return Response(status: .ok, headers: [.contentType: Contract.metricsType], body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }

    let models = modelsBody(modelID: config.modelID)
    let v1 = router.group("v1").add(middleware: AuthMiddleware(keys: config.apiKeys))
    v1.get("models") { _, _ -> Response in
        jsonResponse(status: 200, models)
    }
    v1.post("messages") { request, context -> Response in
        try await messages(request, context: context, config: config, client: client)
    }
    return router
}

func messages(_ request: Request, context: BasicRequestContext, config: GatewayConfig, client: HTTPClient) async throws -> Response {
    guard Contract.isJSONContentType(request.headers[.contentType]) else { throw GatewayError(Contract.unsupportedMediaType) }
    if let declared = request.headers[.contentLength], let length = Int(declared), length > Contract.maxBodyBytes {
        throw GatewayError(Contract.payloadTooLarge)
    }
    var request = request
    let buffer: ByteBuffer
    do {
        buffer = try await request.collectBody(upTo: Contract.maxBodyBytes)
    } catch is NIOTooManyBytesError {
        throw GatewayError(Contract.payloadTooLarge)
    } catch let error as HTTPError where error.status == .contentTooLarge {
        throw GatewayError(Contract.payloadTooLarge)
    }
    let body: JSONValue
    do {
        body = try JSONValue.parse(Data(buffer.readableBytesView))
    } catch {
        throw GatewayError(Contract.invalidJson)
    }
    let req = try Mapping.validate(body)

    var upstreamRequest = HTTPClientRequest(url: config.backendURL + Contract.upstreamPath)
    upstreamRequest.method = .POST
    upstreamRequest.headers.add(name: "content-type", value: "application/json")
    upstreamRequest.headers.add(name: "accept", value: req.stream ? "text/event-stream" : "application/json")
    upstreamRequest.body = .bytes(ByteBuffer(string: Mapping.openAIRequest(req)))
    let upstream: HTTPClientResponse
    do {
        upstream = try await client.execute(upstreamRequest, timeout: .milliseconds(Contract.upstreamTimeoutMs))
    } catch {
        throw GatewayError(Contract.upstreamUnreachable)
    }
    let code = Int(upstream.status.code)
    guard (200..<300).contains(code) else {
        _ = try? await upstream.body.collect(upTo: 1 << 20)  // drain so the connection can be reused
        throw GatewayError.upstreamStatus(code)
    }

    if !req.stream {
        let message: String?
        do {
            let raw = try await upstream.body.collect(upTo: 16 << 20)
            message = Mapping.anthropicMessage(try JSONValue.parse(Data(raw.readableBytesView)), model: req.model)
        } catch {
            throw GatewayError(Contract.upstreamInvalid)
        }
        guard let message else { throw GatewayError(Contract.upstreamInvalid) }
        return jsonResponse(status: 200, message)
    }

    let model = req.model
    return Response(
        status: .ok,
        headers: [.contentType: Contract.sseType, .cacheControl: Contract.sseCacheControl],
        body: ResponseBody { writer in
            var translator = StreamTranslator(model: model)
            var iterator = upstream.body.makeAsyncIterator()
            while true {
                let chunk: ByteBuffer?
                do {
                    chunk = try await iterator.next()
                } catch {
                    break  // upstream broke off: reported below as an error event
                }
                guard let chunk else { break }
                let events = translator.push(chunk.readableBytesView)
                // A failed write means the client went away: the error propagates, the upstream
                // body iterator is dropped, and AsyncHTTPClient cancels the backend request.
                if !events.isEmpty { try await writer.write(ByteBuffer(string: events)) }
            }
            if !translator.done { try await writer.write(ByteBuffer(string: translator.interrupted())) }
            try await writer.finish(nil)
        }
    )
}

@main
struct GatewayMain {
    static func main() async throws {
        let config: GatewayConfig
        do {
            config = try GatewayConfig(environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("hummingbird-gateway: \(error)\n".utf8))
            exit(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var appLogger = Logger(label: "gateway")
        appLogger.logLevel = .warning

        // One keep-alive pool to the backend, as large as the load's connections.
        var clientConfig = HTTPClient.Configuration()
        clientConfig.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: config.poolSize)
        clientConfig.timeout = .init(connect: .seconds(10), read: .milliseconds(Contract.upstreamTimeoutMs))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfig)

        let registry = PrometheusCollectorRegistry()
        let router = buildRouter(config: config, client: client, registry: registry)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: config.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.port
                FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port)\n".utf8))
            },
            logger: appLogger
        )
        do {
            // SIGTERM/SIGINT: stop accepting, finish in-flight requests, then return.
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
