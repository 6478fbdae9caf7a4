/** Values the examples of the description share, so that one example's ids agree with another's. */
export const EXAMPLE = {
  orgId: "5f0c8a9e-2b7d-4c1e-9f3a-6d8e1b2c4a70",
  userId: "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
  memberId: "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98",
  keyPairId: "7e6d5c4b-3a29-4817-a6f5-e4d3c2b1a090",
  recommendationId: "01951f3a-7b2c-7d4e-8f60-1a2b3c4d5e6f",
  email: "owner@example.com",
  token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI5YTFiIn0.c2lnbmF0dXJl",
  publishableKey: "svc_pk_3kQ9xV2mB7nL4pR8sT1wY6zA5cD0fG2hJ",
  secretKey: "svc_sk_8hJ2kL5mN9pQ3rS7tV1wX4yZ6aB0cD2eF",
  at: "2025-03-01T12:00:00.000Z",
} as const;
