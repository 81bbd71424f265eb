#include "core/server/slotsjson.h"

#include "tests/unit/server/serverdata.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using testdata::readServerCapture;

TEST(SlotsJsonTest, ReadsArrayShapedNextTokenOf070) {
    const Result<std::vector<SlotState>> slots = parseSlotsJson(readServerCapture("slots-gen2.json"));
    ASSERT_TRUE(slots.ok()) << slots.error().message;
    ASSERT_EQ(slots->size(), 2u);
    EXPECT_EQ((*slots)[0].id, 0);
    EXPECT_EQ((*slots)[0].nCtx, 2048u);
    EXPECT_TRUE((*slots)[0].isProcessing);
    EXPECT_EQ((*slots)[0].decodedTokens, 1047u);
    EXPECT_EQ((*slots)[0].remainingTokens, 453);
    EXPECT_TRUE((*slots)[0].hasNextToken);
    EXPECT_EQ((*slots)[1].decodedTokens, 1046u);
    EXPECT_TRUE((*slots)[1].taskId.has_value());
}

TEST(SlotsJsonTest, ReadsObjectShapedNextTokenOfOlderBuilds) {
    const Result<std::vector<SlotState>> slots = parseSlotsJson(readServerCapture("slots-object-shape.json"));
    ASSERT_TRUE(slots.ok()) << slots.error().message;
    ASSERT_EQ(slots->size(), 2u);
    EXPECT_EQ((*slots)[0].decodedTokens, 42u);
    EXPECT_EQ((*slots)[0].remainingTokens, -1);
    EXPECT_EQ((*slots)[0].nCtx, 1024u);
    EXPECT_FALSE((*slots)[1].isProcessing);
}

TEST(SlotsJsonTest, IdleSlotsHaveNoNextToken) {
    const Result<std::vector<SlotState>> slots = parseSlotsJson(readServerCapture("slots-idle.json"));
    ASSERT_TRUE(slots.ok()) << slots.error().message;
    ASSERT_EQ(slots->size(), 2u);
    EXPECT_EQ((*slots)[1].id, 1);
    EXPECT_EQ((*slots)[1].nCtx, 512u);
    EXPECT_FALSE((*slots)[1].isProcessing);
    EXPECT_EQ((*slots)[1].decodedTokens, 0u);
    EXPECT_FALSE((*slots)[1].taskId.has_value());
}

TEST(SlotsJsonTest, PromptCountsWhileProcessingThePrompt) {
    const Result<std::vector<SlotState>> slots = parseSlotsJson(readServerCapture("slots-busy.json"));
    ASSERT_TRUE(slots.ok()) << slots.error().message;
    EXPECT_TRUE((*slots)[0].isProcessing);
    EXPECT_EQ((*slots)[0].promptTokens, 17u);
    EXPECT_EQ((*slots)[0].decodedTokens, 0u);
    EXPECT_EQ((*slots)[0].taskId, 2);
}

TEST(SlotsJsonTest, BadShapesAreErrors) {
    EXPECT_EQ(parseSlotsJson("not json").error().code, "server.bad-json");
    EXPECT_EQ(parseSlotsJson("{\"id\":0}").error().code, "server.bad-json");
    EXPECT_EQ(parseSlotsJson("[{\"n_ctx\":5}]").error().code, "server.bad-json");
    const Result<std::vector<SlotState>> wrongType = parseSlotsJson("[{\"id\":0,\"n_ctx\":\"512\"}]");
    ASSERT_FALSE(wrongType.ok());
    EXPECT_NE(wrongType.error().message.find("n_ctx"), std::string::npos);
    EXPECT_FALSE(parseSlotsJson("[{\"id\":0,\"next_token\":5}]").ok());
}

TEST(PropsJsonTest, ReadsCapturedProps) {
    const Result<ServerProps> props = parsePropsJson(readServerCapture("props.json"));
    ASSERT_TRUE(props.ok()) << props.error().message;
    EXPECT_EQ(props->totalSlots, 2u);
    EXPECT_EQ(props->slotContextTokens, 512u);
    EXPECT_EQ(props->buildInfo, "b11669-Debian");
    EXPECT_EQ(props->buildNumber, 11669u);
    EXPECT_EQ(props->modelPath, "tiny.gguf");
    EXPECT_TRUE(props->endpointMetrics);
    EXPECT_TRUE(props->endpointSlots);
}

TEST(PropsJsonTest, ReadsAppendixACapture) {
    const Result<ServerProps> props = parsePropsJson(readServerCapture("props-appendix-a.json"));
    ASSERT_TRUE(props.ok()) << props.error().message;
    EXPECT_EQ(props->totalSlots, 2u);
    EXPECT_EQ(props->slotContextTokens, 512u);
    EXPECT_EQ(props->buildNumber, 11669u);
    EXPECT_FALSE(props->isSleeping);
    EXPECT_EQ(parsePropsJson("[]").error().code, "server.bad-json");
}

TEST(HealthTest, ReadyLoadingAndUnknown) {
    EXPECT_EQ(*parseHealth(200, readServerCapture("health.json")), HealthStatus::Ready);
    EXPECT_EQ(
        *parseHealth(503, R"({"error":{"code":503,"message":"Loading model","type":"unavailable_error"}})"),
        HealthStatus::Loading);
    EXPECT_EQ(*parseHealth(0, R"({"status":"ok"})"), HealthStatus::Ready);
    EXPECT_EQ(parseHealth(500, "oops").error().code, "server.health-unknown");
    EXPECT_EQ(parseHealth(0, "").error().code, "server.health-unknown");
}

} // namespace
} // namespace llamafit
