// What keeps the index consumer from losing anything silently (README, "Index operations"): the queue that receives
// the batches Lambda gives up on (the stream event's on-failure destination), an alarm on that queue's depth, an
// alarm on the consumer falling behind (IteratorAge), and, when the stage sets `alarmEmail`, a topic that mails them.
const IteratorAgeMs = 60_000;

module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const email = await resolveVariable('param:alarmEmail');
  const actions = email
    ? { AlarmActions: [{ Ref: 'IndexAlarmTopic' }], OKActions: [{ Ref: 'IndexAlarmTopic' }] }
    : {};
  return {
    IndexFailuresQueue: {
      Type: 'AWS::SQS::Queue',
      Properties: {
        QueueName: `${service}-${stage}-index-failures`,
        // SQS's longest retention: time to redrive a failure (the stream's own records last 24 h; past that,
        // `npm run reindex` repairs everything).
        MessageRetentionPeriod: 1_209_600,
        SqsManagedSseEnabled: true,
      },
    },
    // The consumer is behind by more than a minute for five minutes running (the contract promises 2 s).
    IndexItemsIteratorAgeAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-index-iterator-age`,
        AlarmDescription: 'The search index consumer is falling behind the table stream',
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'IndexItemsLambdaFunction' } }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 5,
        DatapointsToAlarm: 5,
        Threshold: IteratorAgeMs,
        ComparisonOperator: 'GreaterThanThreshold',
        // Lambda reports IteratorAge only for batches it processes: no data is an idle stream.
        TreatMissingData: 'notBreaching',
        ...actions,
      },
    },
    // Any message is a stream batch the index missed: redrive it (`npm run reindex -- --failure`).
    IndexFailuresQueueAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${service}-${stage}-index-failures`,
        AlarmDescription:
          'Stream batches the search index consumer gave up on are waiting in the failures queue',
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['IndexFailuresQueue', 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        ...actions,
      },
    },
    ...(email
      ? {
          IndexAlarmTopic: {
            Type: 'AWS::SNS::Topic',
            Properties: {
              TopicName: `${service}-${stage}-index-alarms`,
              Subscription: [{ Protocol: 'email', Endpoint: email }],
            },
          },
        }
      : {}),
  };
};
module.exports.IteratorAgeMs = IteratorAgeMs;
