/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The multi-flow study's sender (sim/ns3/programs/multiflow.cc, docs/multiflow.md).
 */

#ifndef EMUSIM_BOUNDED_BULK_SENDER_H
#define EMUSIM_BOUNDED_BULK_SENDER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-socket-base.h"

namespace ns3
{

/**
 * \ingroup applications
 * \brief A bulk sender that keeps at most a fixed backlog of unsent bytes in its TCP socket,
 * from its start until its stop, then closes.
 */
class BoundedBulkSender : public Application
{
  public:
    /// \param remote the sink's address \param backlogBytes unsent bytes kept in the socket
    BoundedBulkSender(Address remote, uint32_t backlogBytes);

    /// \param onSocket called with the connection's socket when the sender starts (a trace
    /// attaches there)
    void SetSocketCallback(Callback<void, Ptr<Socket>> onSocket);

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// HighestSequence trace: the highest sequence number sent so far (snd_nxt's high mark)
    void HighTx(SequenceNumber32, SequenceNumber32 high);
    /// The connection is up: start writing.
    void Connected(Ptr<Socket>);
    /// The socket has room (send or data-sent callback): write more.
    void Space(Ptr<Socket>, uint32_t);
    /// Write until the socket holds m_backlog unsent bytes.
    void TopUp();

    Address m_remote;                       //!< the sink
    uint32_t m_backlog;                     //!< unsent bytes to keep
    Ptr<TcpSocketBase> m_socket;            //!< the connection
    SequenceNumber32 m_highTx;              //!< highest sequence number TCP has sent
    bool m_connected{false};                //!< handshake done
    bool m_stopped{false};                  //!< past the departure time
    Callback<void, Ptr<Socket>> m_onSocket; //!< told of the socket at the start
};

} // namespace ns3

#endif /* EMUSIM_BOUNDED_BULK_SENDER_H */
