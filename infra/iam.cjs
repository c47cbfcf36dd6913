// Least-privilege IAM: one role per function, each allowed only the DynamoDB actions it makes,
// on this table, on the partition keys it touches (dynamodb:LeadingKeys), plus writing its own logs.
const PERMISSIONS = {
  listItems: { actions: ['dynamodb:Query'], leadingKeys: ['ITEM'] },
  getItem: { actions: ['dynamodb:GetItem'], leadingKeys: ['ITEM'] },
  createItem: { actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem'], leadingKeys: ['ITEM', 'COUNTER'] },
  replaceItem: { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], leadingKeys: ['ITEM'] },
  patchItem: { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], leadingKeys: ['ITEM'] },
  deleteItem: { actions: ['dynamodb:DeleteItem'], leadingKeys: ['ITEM'] },
};

const roleName = (fn) => `${fn.charAt(0).toUpperCase()}${fn.slice(1)}Role`;

function role(service, stage, fn, { actions, leadingKeys }) {
  const logGroup = {
    'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${service}-${stage}-${fn}:*`,
  };
  const statements = [
    { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: [logGroup] },
    {
      Effect: 'Allow',
      Action: actions,
      Resource: [{ 'Fn::GetAtt': ['ItemsTable', 'Arn'] }],
      Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': leadingKeys } },
    },
  ];
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ],
      },
      Policies: [
        {
          PolicyName: `${service}-${stage}-${fn}`,
          PolicyDocument: { Version: '2012-10-17', Statement: statements },
        },
      ],
    },
  };
}

module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  return Object.fromEntries(
    Object.entries(PERMISSIONS).map(([fn, permission]) => [
      roleName(fn),
      role(service, stage, fn, permission),
    ]),
  );
};
module.exports.PERMISSIONS = PERMISSIONS;
