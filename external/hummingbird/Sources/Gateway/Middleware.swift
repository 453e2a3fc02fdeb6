import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Prometheus

// The chain, outermost first (router.add(middleware:) order): RequestLogMiddleware,
// MetricsMiddleware, Hummingbird's TracingMiddleware (no tracer bootstrapped: the no-op
// tracer), ErrorMapperMiddleware; then AuthMiddleware on the /v1 route group only.

func elapsedSeconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func routeOf(_ request: Request, _ context: some RequestContext) -> String {
    context.endpointPath ?? Contract.routeLabel(request.uri.path)
}

/// Runs `done` once the response has been written. Fixed-length bodies are written right after
/// the middleware returns, so they are recorded then; a streamed body (no content length, e.g.
/// SSE) is wrapped so the record happens when it ends or the client goes away.
func onResponseDone(_ response: inout Response, _ done: @escaping @Sendable () -> Void) {
    guard response.body.contentLength == nil else {
        done()
        return
    }
    let body = response.body
    response.body = ResponseBody { writer in
        defer { done() }
        try await body.write(&writer)
    }
}

/// One log line per request (swift-log, stderr), written when the response is done.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let status = Int(response.status.code)
        let logger = self.logger
        let method = request.method.rawValue
        let path = request.uri.path
        onResponseDone(&response) {
            logger.info("request", metadata: [
                "method": .string(method),
                "path": .string(path),
                "status": .stringConvertible(status),
                "duration_ms": .string(String(format: "%.3f", elapsedSeconds(since: start) * 1e3)),
            ])
        }
        return response
    }
}

/// swift-prometheus counter + histogram with the contract's names, labels and buckets.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let registry: PrometheusCollectorRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let labels = [
            (Contract.labelRoute, routeOf(request, context)),
            (Contract.labelMethod, request.method.rawValue),
            (Contract.labelStatus, String(response.status.code)),
        ]
        let registry = self.registry
        onResponseDone(&response) {
            registry.makeCounter(name: Contract.counterSample, labels: labels).increment()
            registry.makeValueHistogram(name: Contract.histogramFamily, labels: labels, buckets: Contract.buckets)
                .record(elapsedSeconds(since: start))
        }
        return response
    }
}

/// Every error becomes the contract's error body: ours, Hummingbird's 404 (or 405 when the
/// path exists with another method), body-size errors, and anything unexpected (500).
struct ErrorMapperMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as GatewayError {
            return errorResponse(error)
        } catch let error as HTTPError {
            switch error.status {
            case .notFound: return errorResponse(.noRoute(path: request.uri.path))
            case .contentTooLarge: return errorResponse(GatewayError(Contract.payloadTooLarge))
            default: return errorResponse(GatewayError(Contract.internalError))
            }
        } catch is NIOTooManyBytesError {
            return errorResponse(GatewayError(Contract.payloadTooLarge))
        } catch {
            context.logger.error("unhandled error: \(error)")
            return errorResponse(GatewayError(Contract.internalError))
        }
    }
}

/// `x-api-key` or `Authorization: Bearer`; only on the /v1 group, so only for matched routes.
struct AuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: [String]
    static var xAPIKey: HTTPField.Name { HTTPField.Name("x-api-key")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch Auth.check(xAPIKey: request.headers[Self.xAPIKey], authorization: request.headers[.authorization], keys: keys) {
        case .missing?: throw GatewayError(Contract.missingApiKey)
        case .invalid?: throw GatewayError(Contract.invalidApiKey)
        case nil: return try await next(request, context)
        }
    }
}

func jsonResponse(status: Int, _ body: String, extraHeaders: [(String, String)] = []) -> Response {
    var headers: HTTPFields = [.contentType: Contract.jsonType]
    for (name, value) in extraHeaders {
        if let n = HTTPField.Name(name) { headers[n] = value }
    }
    return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
}

func errorResponse(_ error: GatewayError) -> Response {
    jsonResponse(status: error.status, errorBody(type: error.type, message: error.message), extraHeaders: error.headers)
}
