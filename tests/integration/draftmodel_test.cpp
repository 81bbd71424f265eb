// A draft model (-md, issue 11 item 2) against the real llama-server 0.7.0: the tiny real-weight
// model drafts for a target of the same vocabulary with --spec-type draft-simple and actually
// generates (the completion reports the tokens the draft proposed), and the estimate -- target
// and draft model, each with its own context -- matches every buffer the server printed:
// weights, KV and output to the printed 0.01 MiB, compute within 5 % (servercomparison.h).
// The realistic pairs are checked against recordings (tests/data/recorded/draft-b11669).

#include "core/flags/serverargs.h"
#include "core/model/modelsource.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/integration/serverprocessfixture.h"
#include "tests/support/servercomparison.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

class DraftModelLiveTest : public test::ServerProcessFixture {
  protected:
    DraftModelLiveTest() : ServerProcessFixture("draft-target-tiny.gguf") {}
};

TEST_F(DraftModelLiveTest, DraftGeneratesAndBothModelsMatchTheEstimate) {
    const std::string draftPath = m_model + ".draft.gguf";
    ASSERT_TRUE(test::writeTinyModel(draftPath).ok());
    const QStringList args{QStringLiteral("-m"),
                           QString::fromStdString(m_model),
                           QStringLiteral("-md"),
                           QString::fromStdString(draftPath),
                           QStringLiteral("--spec-type"),
                           QStringLiteral("draft-simple"),
                           QStringLiteral("-c"),
                           QStringLiteral("1024"),
                           QStringLiteral("-np"),
                           QStringLiteral("1"),
                           QStringLiteral("-fit"),
                           QStringLiteral("off"),
                           QStringLiteral("--no-warmup"),
                           QStringLiteral("-t"),
                           QStringLiteral("1"),
                           QStringLiteral("-lv"),
                           QStringLiteral("4")};
    QSignalSpy states(&m_process, &ServerProcess::stateChanged);
    ASSERT_TRUE(m_process.start(m_server, args));
    ASSERT_TRUE(waitForState(states, State::Ready, 60000)) << m_process.failure().message << "\n"
                                                           << m_process.log();

    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QUrl url = m_process.baseUrl();
    url.setPath(QStringLiteral("/completion"));
    QJsonObject body;
    body.insert(QStringLiteral("prompt"), QStringLiteral("the draft proposes, the target verifies"));
    body.insert(QStringLiteral("n_predict"), 48);
    body.insert(QStringLiteral("ignore_eos"), true);
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply* reply = network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    loop.exec();
    ASSERT_TRUE(reply->isFinished()) << "the completion did not finish in time";
    ASSERT_EQ(reply->error(), QNetworkReply::NoError) << reply->errorString().toStdString();
    const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
    reply->deleteLater();
    EXPECT_EQ(answer.value(QStringLiteral("tokens_predicted")).toInt(), 48);
    // tools/server/server-context.cpp reports the draft's proposals in the timings.
    const QJsonObject timings = answer.value(QStringLiteral("timings")).toObject();
    EXPECT_GT(timings.value(QStringLiteral("draft_n")).toInt(), 0)
        << QJsonDocument(answer).toJson().toStdString();

    const auto log = parseAllocationLog(m_process.log());
    ASSERT_TRUE(log.ok()) << log.error().message;
    ASSERT_TRUE(log->draftModelContext.has_value()) << m_process.log();
    ASSERT_TRUE(log->draftModelContext->reserveComplete);

    const auto parsed = parseServerArgs(
        {"-m", m_model, "-md", draftPath, "--spec-type", "draft-simple", "-c", "1024", "-np", "1"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const auto target = loadModel(m_model);
    const auto draft = loadModel(draftPath);
    ASSERT_TRUE(target.ok() && draft.ok());
    const auto estimate =
        estimateMemory(target->info, parsed->settings, {}, CompanionModels{{}, draft->info, std::nullopt});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    ASSERT_TRUE(estimate->draft.has_value());
    const test::ServerComparison comparison = test::compareWithServer(*estimate, *log);
    EXPECT_TRUE(comparison.ok()) << comparison.mismatches.front() << "\n" << comparison.summary;
}

} // namespace
} // namespace llamafit
