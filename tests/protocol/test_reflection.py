"""What a generic gRPC client (grpcurl, Postman, a health probe) sees without any .proto file."""

from __future__ import annotations

import grpc
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from kingmaker.server.background import BackgroundServer


def test_reflection_lists_the_services_and_describes_the_arena(server: BackgroundServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        assert {
            "kingmaker.v1.Arena",
            "kingmaker.v1.Admin",
            "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection",
        } <= services
        # The descriptors come from the server alone: this pool starts empty.
        pool = DescriptorPool(database)
        play = pool.FindServiceByName("kingmaker.v1.Arena").methods_by_name["Play"]
        assert play.client_streaming and play.server_streaming
        assert play.input_type.full_name == "kingmaker.v1.BotMessage"
        assert play.output_type.full_name == "kingmaker.v1.ServerMessage"
        request = pool.FindMessageTypeByName("kingmaker.v1.ActionRequest")
        legal = request.fields_by_name["legal_actions"]
        assert legal.message_type.full_name == "google.protobuf.Any"
        reply = pool.FindMessageTypeByName("kingmaker.v1.ActionReply")
        assert set(reply.oneofs_by_name["choice"].fields) == {
            reply.fields_by_name["legal_action_index"],
            reply.fields_by_name["action"],
            reply.fields_by_name["malformed"],
        }


def test_health_checking_reports_the_arena_serving(server: BackgroundServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "kingmaker.v1.Arena"):
            answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
