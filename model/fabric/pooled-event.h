/*
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License version 2 as
 * published by the Free Software Foundation;
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
 */

#ifndef CRUX_POOLED_EVENT_H
#define CRUX_POOLED_EVENT_H

#include "ns3/event-impl.h"

#include <cstddef>
#include <new>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Base of an ns-3 EventImpl of a per-frame event (a frame's arrival, the end of its
 * serialization) whose objects are recycled through a free list instead of the heap.
 *
 * The simulator deletes an executed or cancelled event through its virtual destructor, which
 * calls this class's operator delete: the memory goes onto a free list of \p T-sized blocks
 * that the next operator new takes first. Scheduling, ordering (time stamp, then insertion
 * order) and execution are ns-3's own; only the allocation differs, so the results do not.
 * The list is per process and not locked: ns-3's default simulator runs in one thread (crux's
 * parallel runs are separate processes).
 *
 * \tparam T the derived event class (CRTP)
 */
template <typename T>
class PooledEvent : public EventImpl
{
  public:
    /**
     * \brief Allocate a \p T, from the free list when it has a block.
     * \param size bytes (sizeof of the class being created)
     * \return the memory
     */
    static void* operator new(std::size_t size)
    {
        if (size == sizeof(T) && s_free != nullptr)
        {
            FreeBlock* b = s_free;
            s_free = b->next;
            return b;
        }
        return ::operator new(size);
    }

    /**
     * \brief Return a block to the free list (blocks of another size go to the heap).
     * \param p the memory
     * \param size its size
     */
    static void operator delete(void* p, std::size_t size)
    {
        if (size == sizeof(T))
        {
            auto* b = static_cast<FreeBlock*>(p);
            b->next = s_free;
            s_free = b;
            return;
        }
        ::operator delete(p);
    }

  private:
    /// A free block: its first bytes link to the next one.
    struct FreeBlock
    {
        FreeBlock* next; //!< next free block
    };

    static inline FreeBlock* s_free = nullptr; //!< head of the free list
};

} // namespace ns3

#endif // CRUX_POOLED_EVENT_H
